"""The tbparse side of the TensorBoard read benchmark (bench/tensorboard-bench.ts): reads every scalar of a
log directory with tbparse into its DataFrame and prints {"seconds", "scalars", "tbparse"} (seconds in-process,
imports included, as a user's script pays them).

    .venv-tb/bin/python tools/tensorboard/tbparse_read.py LOGDIR
"""
import json
import sys
import time
import warnings

START = time.perf_counter()
warnings.filterwarnings("ignore")

import tbparse  # noqa: E402
from tbparse import SummaryReader  # noqa: E402

scalars = SummaryReader(sys.argv[1], pivot=False, event_types={"scalars"}).scalars
print(json.dumps({"seconds": time.perf_counter() - START, "scalars": len(scalars), "tbparse": tbparse.__version__}))
