"""JupyterLab's save hook for the workspace's source notebooks (notebooks/*.ipynb).

Sources are committed clean: no outputs, no execution counts, and only the metadata that says which
kernel runs them (lib/workspace/clean-notebook.ts declares what is kept; these two constants repeat
it, and test/browser/save-hook.test.ts checks that both give the same file). Run All in JupyterLab
fills a notebook with thousands of lines of outputs, and its autosave wrote them into the source;
this hook strips them from what is written, before the write. The notebook open in the browser keeps
its outputs. Notebooks anywhere else (exports/, a copy in tmp/) are saved as they are.

scripts/setup.sh installs it into the project venv's Jupyter configuration
(.venv/etc/jupyter/jupyter_server_config.py), so `npm run lab` saves through it.
"""

import os

# lib/workspace/clean-notebook.ts KEPT_NOTEBOOK_METADATA and KEPT_CELL_METADATA.
KEPT_NOTEBOOK_METADATA = {"kernelspec": ["display_name", "language", "name"], "language_info": ["name"]}
KEPT_CELL_METADATA = ["tags"]

# The source notebooks' folder: this file lives in <workspace>/jupyter/.
SOURCES = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "notebooks")


def _pick(value, keys):
    return {k: value[k] for k in keys if isinstance(value, dict) and k in value}


def clean_notebook(nb):
    """The clean form of a notebook (a dict in nbformat 4), changed in place and returned."""
    metadata = nb.get("metadata") or {}
    nb["metadata"] = {key: _pick(metadata[key], fields) for key, fields in KEPT_NOTEBOOK_METADATA.items() if key in metadata}
    for cell in nb.get("cells", []):
        cell["metadata"] = _pick(cell.get("metadata") or {}, KEPT_CELL_METADATA)
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return nb


def is_source(path, root_dir):
    """True for a notebook directly in the workspace's notebooks/ folder (`path`: the API path under `root_dir`)."""
    full = os.path.realpath(os.path.join(root_dir, path.lstrip("/")))
    return os.path.dirname(full) == SOURCES and full.endswith(".ipynb")


def clean_on_save(model, path, contents_manager, **kwargs):
    """jupyter_server's pre_save_hook: a source notebook's model is cleaned before it is written."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    if is_source(path, contents_manager.root_dir):
        clean_notebook(model["content"])
