/** The MCP server and the query command over frozen archives (npm run mcp, npm run query). Re-exports only. */
export { answerText } from "./answer-text";
export { callTool, mcpServer } from "./mcp-server";
export { ArchiveSet, dataSpecs } from "./served-archive";
export { TOOLS, type ToolDef, toolByName } from "./tools";
