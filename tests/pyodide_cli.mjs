// Runs `python -m schedulers ARGS...` inside real Pyodide under Node, offline: the runtime comes from npm's pyodide
// package and the core from this project's wheel, unpacked into site-packages (pure Python, nothing to fetch).
//
//   node tests/pyodide_cli.mjs PYODIDE_PACKAGE_DIR WHEEL < jobs.json > results.json
//
// jobs.json: [{"argv": [...], "files": {"name.json": "text", ...}}, ...]; each job's files are written to its own
// directory, which is the current directory while it runs. results.json: [{"stdout", "stderr", "status"}, ...].
import {readFileSync} from 'node:fs'
import path from 'node:path'

const [packageDir, wheel] = process.argv.slice(2)
// An uncaught error would make Node print the (minified, huge) source line; the message is what matters.
process.on('uncaughtException', (e) => { console.error(`${e.message || e}`); process.exit(1) })
process.on('unhandledRejection', (e) => { console.error(`${e.message || e}`); process.exit(1) })
const {loadPyodide} = await import(path.resolve(packageDir, 'pyodide.mjs'))
const pyodide = await loadPyodide({indexURL: path.resolve(packageDir) + path.sep})
// Into site-packages (by default a wheel lands in the current directory); a Node Buffer is not accepted.
const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')")
pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), 'wheel', {extractDir: sitePackages})

const jobs = JSON.parse(readFileSync(0, 'utf8'))
pyodide.globals.set('jobs_json', JSON.stringify(jobs))
const results = pyodide.runPython(`
import contextlib, io, json, os, runpy, sys

def run(index, job):
    directory = f"/jobs/{index}"
    os.makedirs(directory, exist_ok=True)
    for name, text in job["files"].items():
        with open(os.path.join(directory, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    os.chdir(directory)
    out, err = io.StringIO(), io.StringIO()
    sys.argv = ["python -m schedulers", *job["argv"]]
    status = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_module("schedulers", run_name="__main__", alter_sys=True)
        except SystemExit as exit:
            status = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "status": status}

json.dumps([run(i, job) for i, job in enumerate(json.loads(jobs_json))], ensure_ascii=False)
`)
process.stdout.write(results)
