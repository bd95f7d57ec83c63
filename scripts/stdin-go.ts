/**
 * The protocol by which the main command (scripts/main.sh) hands executed notebooks to the steps that
 * follow the notebooks while the others still run: one path per line on stdin as each is ready, then
 * a line "go" once every notebook is; stdin closing without "go" means the run stopped.
 */

/**
 * Reads stdin line by line: a line "go" resolves true, stdin closing first resolves false; any other
 * line names an executed notebook that is ready now (`onFile`, in order, before "go" resolves).
 */
export function goSignal(onFile: (file: string) => void = () => undefined): Promise<boolean> {
  return new Promise((resolve) => {
    let text = "";
    let go = false;
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk: string) => {
      text += chunk;
      const lines = text.split("\n");
      text = lines.pop() ?? "";
      for (const line of lines) {
        if (go) break;
        if (line === "go") {
          go = true;
          resolve(true);
        } else if (line.trim() !== "") onFile(line);
      }
    });
    process.stdin.on("end", () => resolve(go || text === "go"));
    process.stdin.on("error", () => resolve(false));
  });
}
