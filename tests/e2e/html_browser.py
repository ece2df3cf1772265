#!/usr/bin/env python3
"""Opens foxopt's report.html in headless Chromium through the DevTools protocol, as a desktop
(1280 px) and as a phone (390 px, mobile), with JavaScript disabled and every request logged
and kept on the machine; prints one JSON object: the requests the page made, its console
errors, its table's first column, its figures, whether it scrolls sideways, and the screenshots.

usage: html_browser.py CHROMIUM PAGE.html OUTDIR   (writes OUTDIR/desktop-K.png, phone-K.png: the
page from the top in pieces of 1000 CSS pixels)
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

import websocket  # websocket-client

chromium, page, outdir = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
url = "file://" + page
profile = tempfile.mkdtemp(prefix="foxchrome.")
# Nothing may leave the machine even if the page asked: no name resolves, every proxy is dead.
proc = subprocess.Popen(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
     "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
     "--disable-component-update", "--disable-sync", "--hide-scrollbars",
     "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
     "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
     "--user-data-dir=" + profile, "about:blank"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    port_file = os.path.join(profile, "DevToolsActivePort")
    for _ in range(300):
        if os.path.exists(port_file) and len(open(port_file).read().split("\n")) >= 2:
            break
        time.sleep(0.1)
    port, path = open(port_file).read().split("\n")[:2]
    ws = websocket.create_connection(f"ws://127.0.0.1:{port}{path}", timeout=60,
                                     suppress_origin=True)
    ids = iter(range(1, 1 << 30))
    events = []

    def call(method, session=None, **params):
        msg = {"id": next(ids), "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        ws.send(json.dumps(msg))
        while True:
            r = json.loads(ws.recv())
            if r.get("id") == msg["id"]:
                if "error" in r:
                    raise RuntimeError(f"{method}: {r['error']}")
                return r.get("result", {})
            events.append(r)

    def wait_for(method, session, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            for e in events:
                if e.get("method") == method and e.get("sessionId") == session:
                    events.remove(e)
                    return e
            events.append(json.loads(ws.recv()))
        raise RuntimeError(f"no {method} in {timeout} s")

    def evaluate(session, expr):
        r = call("Runtime.evaluate", session, expression=expr, returnByValue=True)
        return r["result"].get("value")

    out = {"views": {}}
    for view, width, height, mobile, scale in (("desktop", 1280, 900, False, 1),
                                               ("phone", 390, 844, True, 2)):
        target = call("Target.createTarget", url="about:blank")["targetId"]
        s = call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            call(domain + ".enable", s)
        call("Emulation.setScriptExecutionDisabled", s, value=True)
        call("Emulation.setDeviceMetricsOverride", s, width=width, height=height,
             deviceScaleFactor=scale, mobile=mobile)
        call("Page.navigate", s, url=url)
        wait_for("Page.loadEventFired", s)
        time.sleep(0.3)  # late requests and console messages
        info = evaluate(s, """(() => {
          const rows = [...document.querySelectorAll('table#best tbody tr')];
          const svgs = [...document.querySelectorAll('figure > svg')];
          return {
            ids: rows.map(r => r.cells[0].textContent),
            statuses: rows.map(r => r.className),
            title: document.title,
            h1: document.querySelector('h1').textContent,
            figures: svgs.length,
            drawn: svgs.filter(g => g.getBoundingClientRect().width > 100 &&
                                    g.querySelector('circle, path, rect:not(.fr)')).length,
            widest_figure: Math.max(0, ...svgs.map(g => g.getBoundingClientRect().right)),
            scroll_width: document.documentElement.scrollWidth,
            inner_width: window.innerWidth,
            table_scrolls: (() => { const d = document.querySelector('.scroll');
                                    return d ? d.scrollWidth > d.clientWidth : false; })(),
            sections: [...document.querySelectorAll('h2')].map(h => h.id),
            scripts: document.scripts.length,
          };
        })()""")
        metrics = call("Page.getLayoutMetrics", s)["cssContentSize"]
        # The whole page in pieces of at most 1000 px, which an image viewer shows legibly.
        # The window is made as tall as the page first: Chromium leaves a sideways scroller
        # below the window unpainted in a screenshot that reaches beyond it.
        full = int(min(metrics["height"], 20000))
        call("Emulation.setDeviceMetricsOverride", s, width=width, height=full,
             deviceScaleFactor=scale, mobile=mobile)
        time.sleep(0.3)
        info["screenshots"] = []
        for k, top in enumerate(range(0, full, 1000)):
            shot = call("Page.captureScreenshot", s, format="png",
                        clip={"x": 0, "y": top, "width": width,
                              "height": min(1000, full - top), "scale": 1})
            png = os.path.join(outdir, f"{view}-{k + 1}.png")
            with open(png, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            info["screenshots"].append(png)
        mine = [e for e in events if e.get("sessionId") == s]
        info["requests"] = [e["params"]["request"]["url"] for e in mine
                            if e.get("method") == "Network.requestWillBeSent"]
        info["console_errors"] = (
            [e["params"]["entry"]["text"] for e in mine
             if e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error"]
            + [str(e["params"]["args"]) for e in mine
               if e.get("method") == "Runtime.consoleAPICalled"
               and e["params"]["type"] in ("error", "assert")]
            + [e["params"]["exceptionDetails"]["text"] for e in mine
               if e.get("method") == "Runtime.exceptionThrown"])
        info["height"] = metrics["height"]
        out["views"][view] = info
        call("Target.closeTarget", targetId=target)
    out["url"] = url
    print(json.dumps(out))
    ws.close()
finally:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    subprocess.run(["rm", "-rf", profile])
