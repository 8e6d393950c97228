/*
 * kwsim's timeline page: draws a run document (tools/html/html.h, version 1)
 * as lanes per CPU, per task, per timer and for the system; zoom and pan
 * with the wheel, a drag or the keys; click for details; step through the
 * run's records with the keyboard, the scenario's lines running on each
 * CPU highlighted beside it. Vanilla JS, no network but the server's own
 * /api/run and /api/play when the page came without its document.
 */
'use strict';
(function () {
  const SVGNS = 'http://www.w3.org/2000/svg';
  const MIN_LANE_H = 24, LABEL_W = 150, AXIS_H = 22;
  const STATE_KINDS = new Set(['sleep', 'frozen']);   // what a task is in, not what it does
  const OBJ_KINDS = new Set(['wstate', 'canceling']);   // a work's or worker's state (kw_state)
  const $ = (id) => document.getElementById(id);

  let doc = null;        // the run document
  let model = null;      // lanes and items built from it
  let view = { t0: 0, t1: 1 };
  let step = -1;         // index into doc.records of the cursor, -1: before the first
  let selected = null;   // the item shown in the details
  let touched = false;   // the user moved the view or the cursor: the page no longer does

  /* --- times ------------------------------------------------------------------------- */

  function fmt(ns) {
    if (ns === null || ns === undefined) return '?';
    const s = Math.floor(ns / 1e9), rest = ns - s * 1e9;
    return s + '.' + String(rest).padStart(9, '0') + ' s';
  }
  function fmtDur(ns) {
    if (ns >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
    if (ns >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
    if (ns >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
    return ns + ' ns';
  }

  /* --- the model: lanes and items from the records ------------------------------------ */

  function hue(name) {
    let h = 0;
    for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
    return h;
  }

  function build(d) {
    const recs = d.records || [];
    const end = d.end ? d.end.end_ns : (recs.length ? recs[recs.length - 1].t : 0);
    const lanes = new Map();   // key -> {key, label, order, items}
    const comms = new Map();
    const lane = (key, label, order) => {
      let l = lanes.get(key);
      if (!l) { l = { key, label, order, items: [] }; lanes.set(key, l); }
      return l;
    };
    const taskLane = (pid) => lane('task:' + pid, (comms.get(pid) || '?') + '-' + pid, 1000 + pid);
    const add = (l, item) => { item.lane = l.key; l.items.push(item); return item; };
    for (let c = 0; c < d.run.cpus; c++) { lane('cpu:' + c, 'CPU ' + c, c * 2); }
    const run = [], irq = [], soft = [], tcb = [];   // per CPU: open slices
    const sleeping = new Map(), frozen = new Map(), works = new Map(), timers = new Map();
    const held = new Map();   // lock:cpu -> its holding
    const lastLine = new Map();   // context -> scenario line
    let suspend = null, freeze = null;
    const objState = new Map(), objCancel = new Map();   // obj -> its open state, canceling items

    const close = (open, t, r2, extra) => {
      if (!open) return;
      open.t1 = t; open.r2 = r2;
      if (extra) Object.assign(open, extra);
    };
    recs.forEach((r, i) => {
      if (r.pid > 0 && r.comm && r.ctx === 'task') comms.set(r.pid, r.comm);
      switch (r.ev) {
        case 'sched_switch': {
          if (r.prev_pid) comms.set(r.prev_pid, r.prev_comm);
          if (r.next_pid) comms.set(r.next_pid, r.next_comm);
          close(run[r.cpu], r.t, i);
          run[r.cpu] = null;
          if (r.next_pid) {
            run[r.cpu] = add(lane('cpu:' + r.cpu, 'CPU ' + r.cpu, r.cpu * 2),
              { kind: 'run', t0: r.t, t1: null, r: i, label: r.next_comm + '-' + r.next_pid,
                hue: hue(r.next_comm) });
            close(sleeping.get(r.next_pid), r.t, i);
            sleeping.delete(r.next_pid);
          }
          if (r.prev_pid && r.prev_state !== 'R' && r.prev_state !== 'R+' && r.prev_state !== 'X') {
            sleeping.set(r.prev_pid, add(taskLane(r.prev_pid),
              { kind: 'sleep', t0: r.t, t1: null, r: i,
                label: (r.prev_state === 'D' ? 'blocked' : 'sleeping') + ' (' + r.prev_state + ')' }));
          }
          break;
        }
        case 'task_newtask': comms.set(r.task_pid, r.task_comm); taskLane(r.task_pid); break;
        case 'sched_waking':
          // asleep until woken; from then it waits for a CPU
          close(sleeping.get(r.task_pid), r.t, i);
          sleeping.delete(r.task_pid);
          break;
        case 'irq_handler_entry':
          irq[r.cpu] = add(lane('irq:' + r.cpu, 'CPU ' + r.cpu + ' irq', r.cpu * 2 + 1),
            { kind: 'irq', t0: r.t, t1: null, r: i, label: 'hardirq ' + r.name });
          break;
        case 'irq_handler_exit': close(irq[r.cpu], r.t, i); irq[r.cpu] = null; break;
        case 'softirq_entry':
          soft[r.cpu] = add(lane('irq:' + r.cpu, 'CPU ' + r.cpu + ' irq', r.cpu * 2 + 1),
            { kind: 'softirq', t0: r.t, t1: null, r: i, label: 'softirq ' + r.name });
          break;
        case 'softirq_exit': close(soft[r.cpu], r.t, i); soft[r.cpu] = null; break;
        case 'timer_expire_entry': {
          tcb[r.cpu] = add(lane('irq:' + r.cpu, 'CPU ' + r.cpu + ' irq', r.cpu * 2 + 1),
            { kind: 'timercb', t0: r.t, t1: null, r: i, label: 'timer ' + r.function });
          const tm = timers.get(r.timer);
          if (tm) { close(tm, r.t, i, { state: 'fired' }); timers.delete(r.timer); }
          break;
        }
        case 'timer_expire_exit': close(tcb[r.cpu], r.t, i); tcb[r.cpu] = null; break;
        case 'timer_start': {
          const old = timers.get(r.timer);
          if (old) close(old, r.t, i, { state: 're-armed' });
          timers.set(r.timer, add(lane('timer:' + r.timer, 'timer ' + r.function, 500),
            { kind: 'timer', t0: r.t, t1: null, r: i, label: r.function + ' armed',
              state: 'pending' }));
          break;
        }
        case 'timer_cancel': {
          const tm = timers.get(r.timer);
          if (tm) { close(tm, r.t, i, { state: 'cancelled' }); timers.delete(r.timer); }
          break;
        }
        case 'lock_contended':
          add(r.ctx === 'task' && r.pid ? taskLane(r.pid) : lane('irq:' + r.cpu, 'CPU ' + r.cpu + ' irq', r.cpu * 2 + 1),
            { kind: 'lock', t0: r.t - r.spun_ns, t1: r.t, r: i, label: 'spinning on ' + r.name });
          break;
        case 'lock_acquire':
          // held from lock_acquire to lock_release, in the holder's lane
          held.set(r.lock + ':' + r.cpu, add(r.ctx === 'task' && r.pid ? taskLane(r.pid) : lane('irq:' + r.cpu, 'CPU ' + r.cpu + ' irq', r.cpu * 2 + 1),
            { kind: 'held', t0: r.t, t1: null, r: i, label: 'holding ' + r.name + (r.try ? ' (trylock)' : '') }));
          break;
        case 'lock_release':
          close(held.get(r.lock + ':' + r.cpu), r.t, i);
          held.delete(r.lock + ':' + r.cpu);
          break;
        case 'sched_kthread_work_execute_start':
        case 'kwsim_work_execute_start': // kwsim's own, where the kernel has no tracepoint (4.9)
          works.set(r.pid + ':' + r.work, add(taskLane(r.pid),
            { kind: 'work', t0: r.t, t1: null, r: i, label: r.function, hue: hue(r.function) }));
          break;
        case 'sched_kthread_work_execute_end':
        case 'kwsim_work_execute_end': {
          const k = r.pid + ':' + r.work;
          close(works.get(k), r.t, i); works.delete(k);
          break;
        }
        case 'sched_kthread_work_queue_work':
        case 'kwsim_work_queue_work':
          add(r.ctx === 'task' && r.pid ? taskLane(r.pid) : lane('irq:' + r.cpu, 'CPU ' + r.cpu + ' irq', r.cpu * 2 + 1),
            { kind: 'queue', t0: r.t, t1: r.t, r: i, label: 'queue ' + r.function });
          break;
        case 'frozen':
          frozen.set(r.task_pid, add(taskLane(r.task_pid),
            { kind: 'frozen', t0: r.t, t1: null, r: i, label: 'frozen' }));
          break;
        case 'thawed': close(frozen.get(r.task_pid), r.t, i); frozen.delete(r.task_pid); break;
        case 'suspend_resume':
          if (r.action === 'machine_suspend') {
            if (r.start) suspend = add(lane('system', 'system', -1), { kind: 'suspend', t0: r.t, t1: null, r: i, label: 'suspended (slept ' + fmtDur(r.slept_ns) + ')' });
            else { close(suspend, r.t, i); suspend = null; }
          } else if (r.action === 'freeze_processes') {
            if (r.start) freeze = add(lane('system', 'system', -1), { kind: 'freeze', t0: r.t, t1: null, r: i, label: 'freezing tasks' });
            else { close(freeze, r.t, i); freeze = null; }
          }
          break;
        case 'kwsim_stall':
          // held up as by a long interrupt: nothing ran on the CPU meanwhile
          add(lane('irq:' + r.cpu, 'CPU ' + r.cpu + ' irq', r.cpu * 2 + 1),
            { kind: 'stall', t0: r.t, t1: r.t + r.held_ns, r: i,
              label: 'held up ' + fmtDur(r.held_ns) + ' (until ' + r.until + ')' });
          break;
        case 'finding':
          add(lane('system', 'system', -1),
            { kind: 'finding', t0: r.t, t1: r.t, r: i, finding: r.index,
              label: 'finding: ' + r.kind });
          break;
        case 'kw_state': {
          // a work's or worker's state from here on: a slice while it is in any,
          // canceling along the bottom
          const l = lane('state:' + r.obj, (r.kind === 'worker' ? 'worker ' : 'work ') + r.obj, 600);
          close(objState.get(r.obj), r.t, i); objState.delete(r.obj);
          const what = objWords(r);
          if (what) {
            objState.set(r.obj, add(l, { kind: 'wstate', t0: r.t, t1: null, r: i, label: r.obj + ': ' + what,
              state: r.kind === 'worker' || r.running ? 'running' : r.queued ? 'queued' : r.delayed ? 'delayed' : 'pending' }));
          }
          const was = objCancel.get(r.obj);
          if (!was || was.n !== (r.canceling || 0)) {
            if (was) close(was, r.t, i);
            objCancel.delete(r.obj);
            if (r.canceling) {
              objCancel.set(r.obj, add(l, { kind: 'canceling', t0: r.t, t1: null, r: i, n: r.canceling,
                label: r.obj + ': canceling ' + r.canceling + ' (a cancel of it in progress)' }));
            }
          }
          break;
        }
        case 'scn_line':
          lastLine.set(ctxKey(r), r.line);
          break;
        case 'scn_say':
          if (r.pid > 0) {
            add(taskLane(r.pid), { kind: 'call', t0: r.t, t1: r.t, r: i, label: r.what });
          } else {
            add(lane('irq:' + r.cpu, 'CPU ' + r.cpu + ' irq', r.cpu * 2 + 1),
              { kind: 'call', t0: r.t, t1: r.t, r: i, label: r.what });
          }
          break;
      }
    });
    // what is open at the end closes there
    for (const l of lanes.values()) {
      for (const it of l.items) if (it.t1 === null) { it.t1 = Math.max(end, it.t0); it.open = true; }
      if (l.key.startsWith('task:')) {
        const pid = +l.key.slice(5);
        l.label = (comms.get(pid) || '?') + '-' + pid;
      }
    }
    const order = [...lanes.values()].filter((l) => l.items.length || l.key.startsWith('cpu:'));
    order.sort((a, b) => a.order - b.order || (a.key < b.key ? -1 : 1));
    let items = 0;
    const kinds = new Set();
    order.forEach((l, i) => {
      l.index = i; items += l.items.length;
      for (const it of l.items) kinds.add(it.kind);
    });
    return { lanes: order, end: Math.max(end, 1), items, kinds: [...kinds].sort().join(' ') };
  }

  /* A kw_state record in words: what the work or worker is in, '' for nothing. */
  function objWords(r) {
    if (r.kind === 'worker') return r.current_work ? 'current_work = ' + r.current_work : '';
    const w = [];
    if (r.running) w.push('running (current_work)');
    if (r.pending) w.push('pending');
    if (r.queued) w.push('on work_list');
    if (r.delayed) w.push('on delayed_work_list');
    if (r.timer_pending) w.push('timer pending');
    if (r.canceling) w.push('canceling ' + r.canceling);
    return w.join(', ');
  }

  /* A context: a task, or a CPU's interrupt frames (the html.h "ctx"). */
  function ctxKey(r) { return r.ctx === 'task' && r.pid > 0 ? 'p' + r.pid : 'irq' + r.cpu; }

  /* --- drawing ----------------------------------------------------------------------- */

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVGNS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  /*
   * The axis: ticks at 1, 2 or 5 times a power of ten nanoseconds, as far
   * apart as their labels need (so none overlap), labelled in one unit with
   * the decimals the step needs (so no two are alike), in integer arithmetic
   * (no float noise: a tick is k steps, a step whole nanoseconds).
   */
  const UNITS = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us'], [1, 'ns']];
  function decimals(stepNs, u) {
    let d = 0;
    for (let q = u; q > 1 && stepNs % q !== 0; q /= 10) d++;
    return d;
  }
  function tickLabel(t, unit, dec) {
    const [u, name] = unit, whole = Math.floor(t / u);
    const frac = dec ? '.' + String(t - whole * u).padStart(String(u).length - 1, '0').slice(0, dec) : '';
    return whole + frac + ' ' + name;
  }
  function ticks(t0, t1, plotW) {
    const top = Math.max(Math.abs(t0), Math.abs(t1), 1);
    const unit = UNITS.find(([u]) => top >= u);
    for (let p = 1; ; p *= 10) {
      for (const m of [1, 2, 5]) {
        const stepNs = p * m, dec = decimals(stepNs, unit[0]);
        const chars = tickLabel(Math.floor(top / stepNs) * stepNs, unit, dec).length;
        if (stepNs / (t1 - t0) * plotW >= chars * 6.5 + 12) return { stepNs, unit, dec };
      }
    }
  }

  function render() {
    const box = $('kw-timeline');
    const width = Math.max(box.clientWidth, 400);
    const plotW = width - LABEL_W;
    // the lanes share the pane's height (at least MIN_LANE_H each, else it scrolls)
    const laneH = Math.max(MIN_LANE_H, Math.min(2 * MIN_LANE_H,
      Math.floor((box.clientHeight - AXIS_H - 4) / model.lanes.length)));
    const height = AXIS_H + model.lanes.length * laneH + 4;
    const x = (t) => LABEL_W + (t - view.t0) / (view.t1 - view.t0) * plotW;
    const svg = el('svg', { width, height, id: 'kw-svg' });
    // axis
    const axis = el('g', { class: 'axis' }, svg);
    const tk = ticks(view.t0, view.t1, plotW);
    for (let k = Math.ceil(Math.max(view.t0, 0) / tk.stepNs); k * tk.stepNs <= view.t1; k++) {
      const t = k * tk.stepNs;
      el('line', { x1: x(t), x2: x(t), y1: AXIS_H - 4, y2: height }, axis);
      const tx = el('text', { x: x(t) + 2, y: 12, 'data-t': t }, axis);
      tx.textContent = tickLabel(t, tk.unit, tk.dec);
    }
    let shown = 0;
    model.lanes.forEach((l, i) => {
      const y = AXIS_H + i * laneH;
      el('rect', { class: 'lane-bg' + (i % 2 ? ' odd' : ''), x: 0, y, width, height: laneH }, svg);
      const g = el('g', { 'data-lane': l.key }, svg);
      let lastEnd = -1, lastRect = null;   // the last rectangle drawn in this lane
      const bottom = (it) => STATE_KINDS.has(it.kind) || it.kind === 'held' || it.kind === 'canceling';
      const drawn = l.items.filter(bottom).concat(l.items.filter((it) => !bottom(it)));
      for (const it of drawn) {
        if (it.t1 < view.t0 || it.t0 > view.t1) continue;
        let x0 = Math.max(x(it.t0), LABEL_W), x1 = Math.min(x(it.t1), width);
        const point = it.t0 === it.t1;
        if (point) { x0 -= 1.5; x1 = x0 + 3; }
        if (x1 - x0 < 1) x1 = x0 + 1;
        // too small to tell apart at this zoom: one rectangle for the run of them
        const small = x1 - x0 <= 3;
        if (small && lastRect && lastRect.small && x0 <= lastEnd + 1) {
          lastEnd = Math.max(x1, lastEnd);
          lastRect.el.setAttribute('width', lastEnd - lastRect.x0);
          lastRect.el._items.push(it);
          lastRect.el.setAttribute('data-merged', lastRect.el._items.length);
          if (lastRect.el._items.length <= 50) {
            lastRect.el.dataset.labels += '\n' + it.label;
            lastRect.el.firstChild.textContent = lastRect.el._items.length + ' items here (zoom in):\n' + lastRect.el.dataset.labels;
          }
          continue;
        }
        // bands: states along the bottom, slices above, instants across
        // (a lock held: along the bottom too, a spinlock's holder does not sleep)
        const band = bottom(it) ? [laneH - 6, 5] : point ? [1, laneH - 2] : [2, laneH - 9];
        const cls = 'it k-' + it.kind + (it.state ? ' ' + it.state : '') + (it === selected ? ' sel' : '');
        const rect = el('rect', { class: cls, x: x0, y: y + band[0], width: x1 - x0, height: band[1],
          'data-kind': it.kind, 'data-label': it.label, 'data-t': it.t0, 'data-t1': it.t1, 'data-merged': 1 }, g);
        if (it.hue !== undefined) rect.style.setProperty('--h', it.hue);
        if (it.kind === 'run') rect.style.fill = 'hsl(' + it.hue + ',45%,70%)';
        rect._item = it;
        rect._items = [it];
        rect.dataset.labels = it.label;
        const title = el('title', {}, rect);
        title.textContent = it.label;
        if (x1 - x0 > 40 && !point && !bottom(it)) {
          const tx = el('text', { class: 'it-label', x: x0 + 3, y: y + band[0] + band[1] / 2 + 4 }, g);
          tx.textContent = it.label.slice(0, Math.floor((x1 - x0 - 6) / 6));
        }
        lastEnd = x1; lastRect = { el: rect, x0, small };
        shown++;
      }
      const lt = el('text', { class: 'lane-label', x: 4, y: y + laneH / 2 + 4 }, svg);
      lt.textContent = l.label.length > 22 ? l.label.slice(0, 21) + '\u2026' : l.label;
    });
    // findings across every lane
    for (const l of model.lanes) for (const it of l.items) {
      if (it.kind === 'finding' && it.t0 >= view.t0 && it.t0 <= view.t1)
        el('line', { class: 'finding-mark', x1: x(it.t0), x2: x(it.t0), y1: AXIS_H, y2: height }, svg);
    }
    if (step >= 0 && doc.records[step]) {
      const t = doc.records[step].t;
      if (t >= view.t0 && t <= view.t1)
        el('line', { class: 'cursor', x1: x(t), x2: x(t), y1: 0, y2: height, id: 'kw-cursor' }, svg);
    }
    el('rect', { x: 0, y: 0, width: LABEL_W - 2, height: 0 }, svg);
    box.replaceChildren(svg);
    box.dataset.items = model.items;
    box.dataset.kinds = model.kinds;
    box.dataset.shown = shown;
    box.dataset.t0 = view.t0;
    box.dataset.t1 = view.t1;
  }

  let pending = false;
  function redraw() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; render(); });
  }

  /* --- zoom and pan ------------------------------------------------------------------- */

  function zoom(factor, at) {
    const span = view.t1 - view.t0;
    const nspan = Math.min(Math.max(span * factor, 10), model.end * 1.1);
    if (at === undefined) at = view.t0 + span / 2;
    const f = (at - view.t0) / span;
    view.t0 = at - f * nspan;
    view.t1 = view.t0 + nspan;
    clamp();
    redraw();
  }
  function pan(frac) {
    const span = view.t1 - view.t0;
    view.t0 += span * frac; view.t1 += span * frac;
    clamp();
    redraw();
  }
  function clamp() {
    const span = view.t1 - view.t0, lo = -model.end * 0.02, hi = model.end * 1.02;
    if (view.t0 < lo) { view.t0 = lo; view.t1 = lo + span; }
    if (view.t1 > hi) { view.t1 = hi; view.t0 = hi - span; }
  }
  function fit() { view = { t0: -model.end * 0.01, t1: model.end * 1.01 }; redraw(); }

  /*
   * Where the page opens: the neighbourhood of the run's first finding, or,
   * in a run without one, of its first overlap, where something starts on
   * one CPU (an API call, a timer callback, a work) while an API call is in
   * progress on another: where a race can happen. Null: none (the whole run).
   */
  const NEAR_RECORDS = 12, NEAR_NS = 20000, MIN_SPAN_NS = 1000;
  const begins = (r) => r.ev === 'scn_say' && / begins$/.test(r.what);

  /* The API calls in progress before record k (pid -> {cpu, t}), or the first overlap's index. */
  function calls(k, stopAtOverlap) {
    const open = new Map();
    for (let i = 0; i < k && i < doc.records.length; i++) {
      const r = doc.records[i];
      const starts = begins(r) || r.ev === 'timer_expire_entry' || r.ev === 'sched_kthread_work_execute_start' ||
        r.ev === 'kwsim_work_execute_start';
      if (stopAtOverlap && starts && [...open.values()].some((c) => c.cpu !== r.cpu)) return i;
      if (r.ev === 'scn_say' && r.pid > 0) {
        if (begins(r)) open.set(r.pid, { cpu: r.cpu, t: r.t });
        else open.delete(r.pid);
      }
    }
    return stopAtOverlap ? -1 : open;
  }

  /*
   * A window around record k: the API calls in progress there, from their
   * start to their return, else the records near it; within NEAR_NS of it.
   */
  function near(k) {
    const recs = doc.records, tf = recs[k].t, open = calls(k, false);
    let lo = tf, hi = tf;
    if (open.size) {
      for (const c of open.values()) lo = Math.min(lo, c.t);
      const left = new Set(open.keys());
      for (let i = k; i < recs.length && left.size; i++) {
        const r = recs[i];
        if (r.ev === 'scn_say' && left.has(r.pid) && !begins(r)) { hi = Math.max(hi, r.t); left.delete(r.pid); }
      }
    } else {
      lo = recs[Math.max(0, k - NEAR_RECORDS)].t;
      hi = recs[Math.min(recs.length - 1, k + NEAR_RECORDS)].t;
    }
    lo = Math.max(lo, tf - NEAR_NS);
    hi = Math.min(Math.max(hi, tf + (tf - lo) / 4), tf + NEAR_NS);
    if (hi - lo < MIN_SPAN_NS) { const mid = (lo + hi) / 2; lo = mid - MIN_SPAN_NS / 2; hi = mid + MIN_SPAN_NS / 2; }
    const pad = (hi - lo) * 0.08;
    return { t0: lo - pad, t1: hi + pad };
  }

  function focus() {
    let k = doc.records.findIndex((r) => r.ev === 'finding'), why = 'finding';
    if (k < 0) { k = calls(doc.records.length, true); why = 'overlap'; }
    return k < 0 ? null : Object.assign({ k, why }, near(k));
  }

  /*
   * The view and the cursor until the user moves either: while a run plays,
   * the whole run so far with the cursor on its last event; once it has
   * ended, the neighbourhood of its focus() (0 is the whole run).
   */
  function autoView(live) {
    if (touched) return;
    if (!doc.end) {
      fit();
      if (doc.records.length) setStep(doc.records.length - 1);
      return;
    }
    const f = focus();
    if (!f) { fit(); if (live && doc.records.length) setStep(doc.records.length - 1); return; }
    view = { t0: f.t0, t1: f.t1 };
    clamp();
    setStep(f.k);
    $('kw-timeline').dataset.focus = f.why;
    $('kw-step').textContent = (f.why === 'finding' ? 'Around the first finding' :
      'Around where something starts on one CPU while an API call runs on another') +
      ' (0: the whole run, f: the next finding, n / p: step).' +
      (step >= 0 ? '\n' + $('kw-step').textContent : '');
    redraw();
  }
  function timeAt(clientX) {
    const box = $('kw-timeline').getBoundingClientRect();
    const plotW = Math.max(box.width, 400) - LABEL_W;
    return view.t0 + (clientX - box.left - LABEL_W) / plotW * (view.t1 - view.t0);
  }

  /* --- the scenario text and stepping ------------------------------------------------- */

  function showSource() {
    const pre = $('kw-source');
    pre.replaceChildren();
    doc.scenario.text.split('\n').forEach((text, i) => {
      const div = document.createElement('div');
      div.className = 'kw-src-line';
      div.dataset.line = i + 1;
      div.textContent = text || ' ';
      pre.appendChild(div);
    });
  }

  function srcLine(n) { return document.querySelector('.kw-src-line[data-line="' + n + '"]'); }

  /* Which scenario line each CPU runs after record k: replayed from the start. */
  function linesAt(k) {
    const running = [], inIrq = [], ctxLine = new Map();
    for (let i = 0; i <= k && i < doc.records.length; i++) {
      const r = doc.records[i];
      if (r.ev === 'sched_switch') running[r.cpu] = r.next_pid;
      else if (r.ev === 'irq_handler_entry') inIrq[r.cpu] = true;
      else if (r.ev === 'irq_handler_exit') inIrq[r.cpu] = false;
      else if (r.ev === 'scn_line' || (r.ev === 'scn_say' && r.line)) ctxLine.set(ctxKey(r), r.line);
      else if (r.ev === 'sched_process_exit') ctxLine.delete('p' + r.task_pid);
    }
    const out = [];
    for (let c = 0; c < doc.run.cpus; c++) {
      const key = inIrq[c] ? 'irq' + c : 'p' + (running[c] || 0);
      const line = ctxLine.get(key) || (inIrq[c] ? ctxLine.get('p' + (running[c] || 0)) : 0);
      if (line) out.push({ cpu: c, line });
    }
    return out;
  }

  function describe(r) {
    const skip = new Set(['t', 'cpu', 'pid', 'comm', 'ctx', 'ev']);
    const fields = Object.keys(r).filter((k) => !skip.has(k)).map((k) => k + '=' + r[k]).join(' ');
    const who = r.ctx === 'task' ? (r.pid ? r.comm + '-' + r.pid : '<idle>') : r.ctx;
    if (r.ev === 'scn_say') return fmt(r.t) + '  cpu' + r.cpu + '  ' + who + '  ' + r.what + (r.line ? '   (line ' + r.line + ')' : '');
    if (r.ev === 'scn_line') return fmt(r.t) + '  cpu' + r.cpu + '  ' + who + '  starts scenario line ' + r.line;
    return fmt(r.t) + '  cpu' + r.cpu + '  ' + who + '  ' + r.ev + ': ' + fields;
  }

  function setStep(k) {
    const n = doc.records.length;
    step = Math.max(-1, Math.min(k, n - 1));
    document.body.dataset.step = step;
    document.querySelectorAll('.kw-src-line.kw-cur').forEach((e) => {
      e.classList.remove('kw-cur');
      const b = e.querySelector('.kw-cpus'); if (b) b.remove();
      delete e.dataset.cpus;
    });
    if (step < 0) { $('kw-step').textContent = 'Before the first event.'; redraw(); return; }
    const r = doc.records[step];
    const lines = linesAt(step);
    const byLine = new Map();
    for (const { cpu, line } of lines) byLine.set(line, (byLine.get(line) || []).concat('cpu' + cpu));
    for (const [line, cpus] of byLine) {
      const e = srcLine(line);
      if (!e) continue;
      e.classList.add('kw-cur');
      e.dataset.cpus = cpus.join(' ');
      const b = document.createElement('span');
      b.className = 'kw-cpus'; b.textContent = cpus.join(' ');
      e.appendChild(b);
    }
    $('kw-step').textContent = 'event ' + (step + 1) + ' of ' + n + ': ' + describe(r);
    const span = view.t1 - view.t0;
    if (r.t < view.t0 || r.t > view.t1) { view.t0 = r.t - span / 2; view.t1 = r.t + span / 2; clamp(); }
    const first = byLine.keys().next();
    if (!first.done) { const e = srcLine(first.value); if (e && e.scrollIntoView) e.scrollIntoView({ block: 'nearest' }); }
    redraw();
  }

  /* --- details ------------------------------------------------------------------------ */

  function kernelLine(r) {
    return r && r.kfunc ? r.kfunc + '()  ' + r.kfile + ':' + r.kline + '  (its first traced point)' : null;
  }

  /*
   * The account's line (the API call and its result) a record belongs to:
   * the next one its context says before it starts another scenario line.
   */
  function callFor(i) {
    const key = ctxKey(doc.records[i]);
    for (let j = i; j < doc.records.length && j < i + 5000; j++) {
      const q = doc.records[j];
      if (ctxKey(q) !== key) continue;
      if (q.ev === 'scn_say') return q;
      if (q.ev === 'scn_line' && j > i) return null;
    }
    return null;
  }

  function showDetails(it, here) {
    selected = it;
    const r = doc.records[it.r], r2 = it.r2 !== undefined ? doc.records[it.r2] : null;
    const lines = [];
    lines.push(it.label);
    lines.push('kind: ' + it.kind + (it.state ? ' (' + it.state + ')' : '') + (it.open ? ' (still open at the end)' : ''));
    lines.push('from ' + fmt(it.t0) + (it.t1 !== it.t0 ? ' to ' + fmt(it.t1) + '  (' + fmtDur(it.t1 - it.t0) + ')' : ''));
    lines.push('cpu ' + r.cpu + ', ' + (r.ctx === 'task' ? (r.pid ? r.comm + '-' + r.pid : 'idle') : r.ctx));
    const call = it.kind === 'run' || STATE_KINDS.has(it.kind) || OBJ_KINDS.has(it.kind) ? null : callFor(it.r);
    let scnLine = call && call.line ? call.line : 0;
    if (it.kind === 'finding' && doc.end && doc.end.findings[it.finding]) {
      const f = doc.end.findings[it.finding];
      lines.push('finding [' + (it.finding + 1) + '] ' + f.kind + ': ' + f.msg);
      lines.push('kernel source: ' + f.func + '()  ' + f.file + ':' + f.line);
      if (f.scn_line) scnLine = f.scn_line;
    }
    if (call) {
      lines.push('API call: ' + call.what);
      const m = /= (.*)$/.exec(call.what);
      if (m) lines.push('result: ' + m[1]);
      const k = kernelLine(call);
      if (k) lines.push('kernel source: ' + k);
    }
    const k = r !== call && kernelLine(r);
    if (k) lines.push('kernel source: ' + k);
    lines.push('record: ' + describe(r));
    if (r2) lines.push('ends with: ' + describe(r2));
    const box = $('kw-details');
    box.textContent = lines.join('\n');
    box.dataset.itemKind = it.kind;
    box.dataset.scnLine = scnLine;
    document.querySelectorAll('.kw-src-line.kw-sel').forEach((e) => e.classList.remove('kw-sel'));
    if (scnLine) {
      const a = document.createElement('a');
      a.textContent = '\nscenario line ' + scnLine + ': ' + (doc.scenario.text.split('\n')[scnLine - 1] || '').trim();
      a.onclick = () => { const e = srcLine(scnLine); if (e) e.scrollIntoView({ block: 'center' }); };
      box.appendChild(a);
      const e = srcLine(scnLine);
      if (e) e.classList.add('kw-sel');
    }
    if (here && here.length > 1) {
      // what shares this spot at this zoom: each one a click away
      box.appendChild(document.createTextNode('\n\n' + here.length + ' items here at this zoom:'));
      here.slice(0, 200).forEach((o, i) => {
        const a = document.createElement('a');
        a.className = 'kw-here';
        a.dataset.item = i;
        a.dataset.label = o.label;
        a.textContent = '\n  ' + fmt(o.t0) + '  ' + o.kind + ': ' + o.label;
        a.onclick = () => showDetails(o, here);
        box.appendChild(a);
      });
    }
    redraw();
  }

  /* --- findings ----------------------------------------------------------------------- */

  function findingRecord(i) {
    return doc.records.findIndex((r) => r.ev === 'finding' && r.index === i);
  }

  /* The cursor on a finding and the view on its neighbourhood (as focus() opens). */
  function gotoFinding(i) {
    const k = findingRecord(i);
    const f = doc.end.findings[i];
    const w = k >= 0 ? near(k) : { t0: f.t - MIN_SPAN_NS, t1: f.t + MIN_SPAN_NS };
    view = { t0: w.t0, t1: w.t1 }; clamp();
    document.querySelectorAll('#kw-findings li').forEach((e) => e.classList.toggle('kw-at', +e.dataset.finding === i));
    if (k >= 0) setStep(k); else redraw();
  }

  function showEnd() {
    const e = doc.end;
    const out = $('kw-outcome');
    if (!e) { out.textContent = 'running...'; return; }
    out.textContent = 'End: ' + e.outcome + ' at ' + fmt(e.end_ns) + (e.verdict ? ', verdict ' + e.verdict : '') +
      ', ' + e.findings.length + ' finding' + (e.findings.length === 1 ? '' : 's');
    out.className = e.verdict === 'No' || (!e.verdict && e.findings.length) ? 'no' : 'ok';
    const ol = $('kw-findings');
    ol.replaceChildren();
    e.findings.forEach((f, i) => {
      const li = document.createElement('li');
      li.className = 'kw-finding';
      li.dataset.finding = i;
      li.dataset.findingKind = f.kind;
      li.textContent = f.kind + ' at ' + fmt(f.t) + ' cpu' + f.cpu + ' ' + f.context + ' (' + f.func + ', ' +
        f.file + ':' + f.line + ')' + (f.scn_line ? ', scenario line ' + f.scn_line : '') + ': ' + f.msg.split('\n')[0];
      li.onclick = () => { touched = true; gotoFinding(i); };
      ol.appendChild(li);
    });
    if (!e.findings.length) ol.textContent = 'none';
    const cap = $('kw-cap');
    if (e.dropped) {
      cap.hidden = false;
      cap.textContent = 'A long run: this page shows its first ' + e.kept + ' of ' + e.records +
        ' events (up to ' + fmt(e.dropped_from_ns) + ', findings always kept); ' + e.dropped +
        ' later events are left out. Export with --max-events N for more.';
    }
  }

  /* --- input -------------------------------------------------------------------------- */

  function nextFinding() {
    if (!doc.end || !doc.end.findings.length) return;
    for (let k = step + 1; k < doc.records.length; k++) {
      if (doc.records[k].ev === 'finding') { gotoFinding(doc.records[k].index); return; }
    }
  }

  /* The keys zoom around the cursor while it is in view, else around the middle. */
  function cursorIn() {
    const r = step >= 0 ? doc.records[step] : null;
    return r && r.t >= view.t0 && r.t <= view.t1 ? r.t : undefined;
  }

  function onKey(ev) {
    if (!model || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = ev.key, was = touched;
    touched = true;
    if (ev.shiftKey && k === 'ArrowLeft') pan(-0.2);
    else if (ev.shiftKey && k === 'ArrowRight') pan(0.2);
    else if (k === 'ArrowRight' || k === 'n') setStep(step + 1);
    else if (k === 'ArrowLeft' || k === 'p') setStep(step - 1);
    else if (k === 'Home') setStep(0);
    else if (k === 'End') setStep(doc.records.length - 1);
    else if (k === '+' || k === '=') zoom(0.5, cursorIn());
    else if (k === '-' || k === '_') zoom(2, cursorIn());
    else if (k === '0') fit();
    else if (k === 'f') nextFinding();
    else { touched = was; return; }
    ev.preventDefault();
  }

  function wire() {
    const box = $('kw-timeline');
    document.addEventListener('keydown', onKey);
    box.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      touched = true;
      if (ev.shiftKey) pan(ev.deltaY > 0 ? 0.1 : -0.1);
      else zoom(ev.deltaY > 0 ? 1.25 : 0.8, timeAt(ev.clientX));
    }, { passive: false });
    let drag = null;
    box.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, t0: view.t0, t1: view.t1, moved: false }; });
    window.addEventListener('mousemove', (ev) => {
      if (!drag) return;
      const dx = ev.clientX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = touched = true;
      if (!drag.moved) return;
      const plotW = Math.max(box.clientWidth, 400) - LABEL_W;
      const dt = dx / plotW * (drag.t1 - drag.t0);
      view.t0 = drag.t0 - dt; view.t1 = drag.t1 - dt; clamp(); redraw();
    });
    window.addEventListener('mouseup', (ev) => {
      const d = drag; drag = null;
      if (!d || d.moved) return;
      const t = ev.target;
      const r = t && t._items ? t : t && t.parentNode && t.parentNode._items ? t.parentNode : null;
      if (r) showDetails(r._items[0], r._items);
    });
    window.addEventListener('resize', redraw);
    $('kw-source').addEventListener('click', (ev) => {
      const line = ev.target.closest && ev.target.closest('.kw-src-line');
      if (!line) return;
      // the first event of that line, after the cursor
      const n = +line.dataset.line;
      touched = true;
      for (let k = step + 1; k < doc.records.length; k++) {
        const r = doc.records[k];
        if ((r.ev === 'scn_line' || r.ev === 'scn_say') && r.line === n) { setStep(k); return; }
      }
    });
  }

  /* --- loading ------------------------------------------------------------------------ */

  function start(d, live) {
    const first = !doc;
    doc = d;
    if (!doc.records) doc.records = [];
    model = build(doc);
    if (first) {
      document.title = doc.title + ' - kwsim timeline';
      $('kw-title').textContent = doc.title;
      const r = doc.run;
      $('kw-run').textContent = doc.scenario.path + ' | kernel ' + r.kernel + ', ' + r.cpus + (r.cpus === 1 ? ' cpu' : ' cpus') + ', HZ=' + r.hz +
        ', preempt ' + r.preempt + ', strategy ' + r.strategy + (r.strategy === 'random' ? ', seed ' + r.seed : '') +
        (r.replay ? ' (replay)' : '');
      showSource();
      wire();
      $('kw-timeline').focus();
    }
    showEnd();
    autoView(live);
    redraw();
    document.body.dataset.ready = doc.end ? '1' : '0';
  }

  function fail(msg) {
    $('kw-step').textContent = 'Cannot load the run: ' + msg;
    document.body.dataset.ready = 'error';
  }

  const embedded = $('kwsim-doc');
  if (embedded) {
    try { start(JSON.parse(embedded.textContent)); } catch (e) { fail(String(e)); }
  } else if (/(^|[?&])live=1(&|$)/.test(location.search.slice(1))) {
    const es = new EventSource('/api/play' + location.search);
    let live = null;
    es.addEventListener('doc-head', (ev) => { live = JSON.parse(ev.data); live.records = []; start(live, true); });
    es.addEventListener('records', (ev) => {
      if (!live) return;
      for (const r of JSON.parse(ev.data)) live.records.push(r);
      start(live, true);
    });
    es.addEventListener('end', (ev) => { es.close(); if (live) { live.end = JSON.parse(ev.data); start(live, true); } });
    es.onerror = () => { if (!live || !live.end) fail('the server closed the stream'); es.close(); };
  } else {
    fetch('/api/run' + location.search).then((res) => {
      if (!res.ok) return res.text().then((t) => { throw new Error(res.status + ' ' + t); });
      return res.json();
    }).then(start, (e) => fail(String(e.message || e)));
  }
})();
