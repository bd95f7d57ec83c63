// Shared by the kernel tests (prebuilt lib, startup snapshot).

/** Python driver: start the workspace kernel, run each cell, print one JSON line per cell (status, stdout+stderr). */
export const DRIVER = `
import json, sys
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="prebuilt-test", cwd=sys.argv[1])
try:
    for src in json.loads(sys.argv[2]):
        text = []
        def hook(msg):
            if msg["msg_type"] == "stream":
                text.append(msg["content"]["text"])
        reply = kc.execute_interactive(src, timeout=120, output_hook=hook)
        print(json.dumps({"status": reply["content"]["status"], "text": "".join(text)}), flush=True)
finally:
    km.shutdown_kernel(now=True)
`;
