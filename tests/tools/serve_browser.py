#!/usr/bin/env python3
"""The served pages in a real browser: kwsim serve on an ephemeral port, and
Debian's chromium driven over WebDriver (html_browser.py's driver).

Usage: serve_browser.py KWSIM OUT_DIR

From the index to races/flush-from-own-worker.kws (a work that flushes
itself: a deadlock); its page's Run form, live: the timeline page plays the
run as the server streams it (server-sent events) until the whole document
is there, and shows the work's slice and the deadlock, in the findings list
too; n steps through the events. Then the edit box: a scenario with an
error comes back with the error at its line; a good edit runs and plays.
Saves OUT_DIR/served.png. Then what a user sees without pressing a key:
lesson 15 (a race at 8 ms in a 32 ms run), Run and play at a slow pace:
while it plays, the cursor follows the events as they come and the view
the run so far; once it has ended, the view is the race's neighbourhood
(mainline: the timer callback while the cancel runs on the other CPU; v4.9:
the first finding, the cursor on it), work D's state lane (v4.9: on
work_list while its canceling count is 1; mainline: never), the axis labels distinct, without
float noise, not overlapping; 0 shows the whole run, f the next finding's
neighbourhood. Saves OUT_DIR/lesson15.png. Then SIGTERM: the server exits 0.

Exit: 0 passed, 1 a check failed, 77 skipped (chromium or chromedriver not
installed: tools/setup installs both). Every wait is bounded by a number of
polls, as a guard against a hang, never an assertion on time.
"""
import base64
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from html_browser import SKIP, Driver, check, failures  # noqa: E402

RACE = 'lib/races/flush-from-own-worker.kws'
LESSON = 'lib/teaching/15-race-timer-vs-cancel.kws'
CANCEL_NS, TIMER_NS = 7999950, 8000500   # lesson 15's cancel begins, its timer fires

# The view, the cursor's record, the axis labels (text, left, right) and what is drawn.
SEEN = """
const b = document.getElementById('kw-timeline').dataset;
const labels = [...document.querySelectorAll('.axis text')].map(e => {
  const r = e.getBBox(); return [e.textContent, r.x, r.x + r.width]; });
return { t0: +b.t0, t1: +b.t1, step: +document.body.dataset.step, labels: labels,
  cursor: document.getElementById('kw-cursor') !== null,
  drawn: [...document.querySelectorAll('rect.it')].map(e => e.dataset.kind),
  text: document.getElementById('kw-step').textContent };
""".strip()


def ready(d):
    return d.wait('return document.body.dataset.ready === "1" ? 1 : '
                  'document.body.dataset.ready === "error" ? "error" : 0', polls=2400)


def timeline_checks(d, what):
    # the whole run in view (the live page fitted its view when the run's head came)
    d.find('#kw-timeline')
    d.keys('0')
    d.wait('return [...document.querySelectorAll("rect[data-kind=work]")]'
           '.some(e => e.dataset.label === "selfish")')
    works = d.js('return [...document.querySelectorAll("rect[data-kind=work]")]'
                 '.map(e => e.dataset.label)')
    check('selfish' in works, '%s: a work slice of selfish is drawn (%s)' % (what, works))
    check(d.js('return document.querySelectorAll("rect[data-kind=finding]").length') >= 1,
          '%s: the finding is drawn on the timeline' % what)
    kinds = d.js('return [...document.querySelectorAll("#kw-findings li.kw-finding")]'
                 '.map(e => e.dataset.findingKind)')
    check(kinds == ['deadlock'], '%s: the findings list has the deadlock (%s)' % (what, kinds))


def axis_ok(labels, what):
    """Axis labels: at least three, distinct, a number and a unit, in order, not overlapping."""
    text = [l[0] for l in labels]
    check(len(text) >= 3 and len(set(text)) == len(text),
          '%s: at least 3 axis labels, no two alike (%s)' % (what, text))
    check(all(re.fullmatch(r'\d+(\.\d{1,6})? (s|ms|us|ns)', t) for t in text),
          '%s: each label a number with at most 6 decimals and a unit (%s)' % (what, text))
    check(all(a[2] < b[1] for a, b in zip(labels, labels[1:])),
          '%s: no two labels overlap (%s)' % (what, labels))


def first_view(d, url, kernel, outdir):
    """Lesson 15's Run and play, no key pressed until the checks of what opened."""
    what = 'lesson 15 on %s' % kernel
    d.s('POST', '/url', {'url': url + 'scenario?file=' + LESSON})
    d.js('document.querySelector("#run select[name=kernel]").value = arguments[0];'
         'document.querySelector("#run input[name=ms]").value = "400"', kernel)
    d.s('POST', '/element/%s/click' % d.find('#run button')[0])
    d.wait('return location.pathname === "/play" && document.getElementById("kw-timeline") !== null')
    # while it plays: the cursor and the view's end at each change of either
    d.js('window.kwSeen = []; const f = () => { const b = document.getElementById("kw-timeline");'
         ' if (document.body.dataset.ready === "0" && b && b.dataset.t1)'
         '   window.kwSeen.push([+document.body.dataset.step, +b.dataset.t1]); };'
         'f(); new MutationObserver(f).observe(document.body, { attributes: true,'
         ' subtree: true, attributeFilter: ["data-step", "data-t1"] });')
    got = ready(d)
    d.settle()
    played = d.js('return window.kwSeen') or []
    check(got == 1, '%s: the run played to its end (%s)' % (what, got))
    steps = [s for s, _ in played]
    check(len(set(steps)) >= 2 and steps == sorted(steps) and steps[-1] > 0,
          '%s: while it played the cursor followed the events (steps %s)' % (what, steps))
    ends = [t1 for _, t1 in played]
    check(bool(ends) and ends == sorted(ends) and ends[-1] > TIMER_NS,
          '%s: and the view grew with the run, not 0 to 1 ns (%s)' % (what, played))
    v = d.js(SEEN)
    span = v['t1'] - v['t0']
    check(v['t0'] < CANCEL_NS and TIMER_NS < v['t1'] and span < 10000,
          '%s: it opens on the race: the cancel and the timer callback in a view of %.0f ns '
          '(%s to %s)' % (what, span, v['t0'], v['t1']))
    check(v['cursor'] and v['step'] > 0, '%s: the cursor is drawn, at event %s' % (what, v['step']))
    check('timercb' in v['drawn'] and 'run' in v['drawn'],
          '%s: the timer callback and the tasks are drawn (%s)' % (what, sorted(set(v['drawn']))))
    axis_ok(v['labels'], what)
    # why: work D's state lane, its canceling count along the bottom
    states = d.js('return [...document.querySelectorAll("g[data-lane=\'state:D\'] rect")]'
                  '.map(e => [e.dataset.kind, e.dataset.label, +e.dataset.t, +e.dataset.t1])')
    cancel = [(a, b) for k, _, a, b in states if k == 'canceling']
    queued = [(a, b) for k, label, a, b in states if k == 'wstate' and 'on work_list' in label]
    both = [q for q in queued if any(a < q[1] and q[0] < b for a, b in cancel)]
    check(bool(cancel), '%s: work D\'s lane shows its canceling count (%s)' % (what, states))
    if kernel == 'v4.9':
        check(bool(both), '%s: and D on work_list while canceling was 1 (%s)' % (what, states))
    else:
        check(not both, '%s: and D never on work_list while canceling (%s)' % (what, states))
    if kernel == 'v4.9':
        check('Around the first finding' in v['text'] and 'finding: index=0' in v['text'],
              '%s: the cursor is on the first finding (%s)' % (what, v['text']))
        png = base64.b64decode(d.s('GET', '/screenshot'))
        with open(os.path.join(outdir, 'lesson15.png'), 'wb') as f:
            f.write(png)
    d.keys('0')
    w = d.js(SEEN)
    check(w['t0'] <= 0 and w['t1'] >= 32000000, '%s: 0 shows the whole run (%s to %s)' %
          (what, w['t0'], w['t1']))
    axis_ok(w['labels'], what + ', whole run')
    if kernel == 'v4.9':
        d.keys('\ue011f')   # Home, then f
        f = d.js(SEEN)
        check(f['t0'] < TIMER_NS < f['t1'] and f['t1'] - f['t0'] < 10000 and
              'finding: index=0' in f['text'],
              '%s: f moves the cursor to the finding and the view to its neighbourhood '
              '(%s to %s)' % (what, f['t0'], f['t1']))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    kwsim, outdir = sys.argv[1:]
    chromium = shutil.which('chromium')
    chromedriver = shutil.which('chromedriver')
    if not chromium or not chromedriver:
        print('SKIP: chromium and chromium-driver are not installed (tools/setup installs them)')
        return SKIP
    os.makedirs(outdir, exist_ok=True)
    tmp = tempfile.mkdtemp()
    server = subprocess.Popen([kwsim, 'serve', '--port', '0'], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    url = server.stdout.readline().strip()
    if not check(url.startswith('http://127.0.0.1:'), 'kwsim serve says where it listens (%s)' % url):
        server.kill()
        return 1
    d = None
    try:
        d = Driver.launch(chromium, chromedriver, os.path.join(tmp, 'profile'), '1280,800')

        # the index links the scenario; its page runs it, live
        d.s('POST', '/url', {'url': url})
        link = d.find('a[href="/scenario?file=%s"]' % RACE)
        if not check(len(link) == 1, 'the index links %s' % RACE):
            return 1
        d.s('POST', '/element/%s/click' % link[0])
        d.wait('return document.getElementById("run") !== null')
        # as a user would: a quick pace, then the form's Run button
        d.js('document.querySelector("#run input[name=ms]").value = "10"')
        d.s('POST', '/element/%s/click' % d.find('#run button')[0])
        got = ready(d)
        here = d.js('return location.pathname + location.search')
        if not check(got == 1, 'the run played to its end in the timeline page (%s, %s)' %
                     (got, here)):
            print(d.js('return document.getElementById("kw-step").textContent'))
            return 1
        check(here.startswith('/play?file=') and 'live=1' in here, 'it was the live page (%s)' % here)
        timeline_checks(d, 'live')
        d.keys('\ue011')   # Home
        steps = []
        for _ in range(5):
            d.keys('n')
            steps.append(int(d.js('return +document.body.dataset.step')))
        check(steps == [1, 2, 3, 4, 5], 'Home, then n steps through the events (%s)' % steps)
        d.keys('0')
        png = base64.b64decode(d.s('GET', '/screenshot'))
        with open(os.path.join(outdir, 'served.png'), 'wb') as f:
            f.write(png)
        check(png[:8] == b'\x89PNG\r\n\x1a\n', 'a screenshot saved: %s' %
              os.path.join(outdir, 'served.png'))

        # the edit box: an error at its line
        d.s('POST', '/url', {'url': url + 'scenario?file=' + RACE})
        text = d.js('return document.querySelector("#edit textarea").value')
        lines = text.split('\n')
        bad = 1 + next(i for i, l in enumerate(lines) if 'kthread_flush_work(A)' in l)
        broken = '\n'.join(l.replace('kthread_flush_work(A)', 'kthread_flush_wrok(A)')
                           for l in lines)
        d.js('document.querySelector("#edit textarea").value = arguments[0]', broken)
        d.s('POST', '/element/%s/click' % d.find('#edit button')[0])
        d.wait('return document.querySelector("tr.err") !== null')
        row = d.js('const r = document.querySelector("tr.err"); return r ? r.id : null')
        msg = d.js('const m = document.querySelector("td.msg"); return m ? m.textContent : ""')
        check(row == 'L%d' % bad and msg.startswith('edit:%d:' % bad),
              'the parser\'s error is shown at line %d (%s: %s)' % (bad, row, msg))
        # a good edit runs and plays
        d.js('document.querySelector("#edit textarea").value = arguments[0]', text)
        d.s('POST', '/element/%s/click' % d.find('#edit button')[0])
        got = ready(d)
        here = d.js('return location.pathname + location.search')
        check(got == 1 and here.startswith('/play?edit=e'),
              'the edited scenario played (%s, %s)' % (got, here))
        timeline_checks(d, 'edited')

        first_view(d, url, 'mainline', outdir)
        first_view(d, url, 'v4.9', outdir)
    finally:
        if d:
            d.quit()
        server.terminate()
        try:
            rc = server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            rc = None
        check(rc == 0, 'kwsim serve exits 0 on SIGTERM (%s)' % rc)
        shutil.rmtree(tmp, ignore_errors=True)
    print('%d check(s) failed' % len(failures) if failures else 'all checks passed')
    return 1 if failures else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except (OSError, RuntimeError, ValueError, KeyError, TypeError) as e:
        print('FAIL: the browser session broke off: %s' % e)
        sys.exit(1)
