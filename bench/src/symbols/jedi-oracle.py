"""The Python oracle of bench/symbols/oracle: jedi answers one JSON request per line on stdin.

{"op": "references"|"definition", "path": abs, "line": 1-based, "column": 0-based} ->
{"sites": [{"path", "line", "column"}]}  (references: every name jedi binds to it, its own site left out)
"""
import json
import sys

import jedi

root = sys.argv[1]
project = jedi.Project(path=root, added_sys_path=[root], smart_sys_path=False)
sources = {}

for request in sys.stdin:
    ask = json.loads(request)
    path = ask["path"]
    if path not in sources:
        with open(path, encoding="utf-8", errors="replace") as f:
            sources[path] = f.read()
    sites = []
    try:
        script = jedi.Script(sources[path], path=path, project=project)
        if ask["op"] == "references":
            names = script.get_references(ask["line"], ask["column"], include_builtins=False, scope="project")
        else:
            names = script.goto(ask["line"], ask["column"], follow_imports=True)
        for name in names:
            if name.module_path is None or name.line is None:
                continue
            site = {"path": str(name.module_path), "line": name.line, "column": name.column}
            if ask["op"] == "references" and site["path"] == path and site["line"] == ask["line"] and site["column"] == ask["column"]:
                continue
            sites.append(site)
    except Exception as error:  # a name jedi cannot follow: no sites
        sites = []
    print(json.dumps({"sites": sites}), flush=True)
