"""The official MCP Python SDK as an independent client of the MCP server (test/mcp/python-client.test.ts).

Spawns the server over stdio with the command line given, lists its tools, reads one summary, asks
for a run that does not exist; prints one JSON object: the tool names, the summary's structured
content, the refusal's error flag and text, and the protocol version negotiated.
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(command: str, args: list[str]) -> None:
    params = StdioServerParameters(command=command, args=args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            summary = await session.call_tool("summary", {"archive": "sample"})
            refused = await session.call_tool("history", {"archive": "sample", "run": "nope"})
            print(json.dumps({
                "protocol": init.protocol_version,
                "server": init.server_info.name,
                "tools": [t.name for t in tools.tools],
                "summary": summary.structured_content,
                "summaryError": summary.is_error,
                "refusedError": refused.is_error,
                "refusedText": refused.content[0].text,
            }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
