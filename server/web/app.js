// The aopt dashboard. Reads /api/v1 and redraws when /api/v1/events reports progress.
// Every value from the API goes into the page through textContent or SVG attributes, never as
// HTML, because operator sources and tuple texts are arbitrary text.
// A daemon listening beyond loopback needs a bearer token: open the page as /#token=<token>.
'use strict';

const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
const headers = token ? { Authorization: 'Bearer ' + token } : {};
const state = { campaign: null, operator: null };
const SVG = 'http://www.w3.org/2000/svg';

async function api(path, options = {}) {
  const res = await fetch('/api/v1' + path, { ...options, headers });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

function el(tag, attrs = {}, ...children) {
  const e = tag.startsWith('svg:') ? document.createElementNS(SVG, tag.slice(4))
                                   : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : String(c));
  return e;
}

function bar(fraction) {
  const inner = el('span');
  inner.style.width = (100 * Math.max(0, Math.min(1, fraction))).toFixed(1) + '%';
  return el('span', { class: 'bar', title: (100 * fraction).toFixed(1) + '%' }, inner);
}

const fmt = (x, digits = 2) => (typeof x === 'number' ? x.toFixed(digits) : '');

async function refreshCampaigns() {
  const { campaigns } = await api('/campaigns');
  const body = document.querySelector('#campaigns tbody');
  body.replaceChildren(...campaigns.map((c) => {
    const row = el('tr', { class: 'clickable campaign', 'data-campaign': c.id },
      el('td', {}, c.id), el('td', { class: 'status' }, c.status),
      el('td', { class: 'progress' }, bar(c.progress), ' ' + (100 * c.progress).toFixed(0) + '%'),
      el('td', {}, c.operators), el('td', {}, c.evaluations + ' / ' + c.total_budget),
      el('td', {}, fmt(c.geomean_speedup, 3) + 'x'),
      el('td', {}, (100 * (c.fast_p['1.0'] || 0)).toFixed(1) + '%'), el('td', {}, c.updated));
    if (c.id === state.campaign) row.classList.add('selected');
    row.onclick = () => selectCampaign(c.id);
    return row;
  }));
  if (!state.campaign && campaigns.length) selectCampaign(campaigns[campaigns.length - 1].id);
}

// The device pool: local slots and remote evaluation workers (issue 19); a worker that left
// stays listed with 0 slots and what it evaluated.
async function refreshWorkers() {
  const pool = await api('/workers');
  document.getElementById('pool-summary').textContent =
    `${pool.slots} slots, ${pool.in_flight} in flight, ${pool.queued} queued, ` +
    `${pool.joined} workers, ${pool.requeued} re-queued, ${pool.duplicates} late duplicates`;
  document.querySelector('#workers tbody').replaceChildren(...pool.owners.map((o) =>
    el('tr', {}, el('td', {}, o.name), el('td', {}, o.slots), el('td', {}, o.busy),
      el('td', {}, o.evaluated))));
}

async function selectCampaign(id) {
  // Operator names repeat across campaigns, so the old selection would show another campaign's
  // operator (or a 404); refreshCampaign picks the new campaign's first operator.
  if (id !== state.campaign) {
    state.operator = null;
    document.getElementById('operator-detail').hidden = true;
  }
  state.campaign = id;
  document.querySelectorAll('#campaigns tr').forEach(
    (r) => r.classList.toggle('selected', r.dataset.campaign === id));
  await refreshCampaign();
}

async function refreshCampaign() {
  if (!state.campaign) return;
  const c = await api('/campaigns/' + encodeURIComponent(state.campaign));
  document.getElementById('campaign-detail').hidden = false;
  document.getElementById('campaign-id').textContent = c.id + ' (' + c.status + ')';
  const body = document.querySelector('#operators tbody');
  body.replaceChildren(...c.operator_results.map((o) => {
    const row = el('tr', { class: 'clickable operator', 'data-operator': o.name },
      el('td', {}, o.name), el('td', {}, o.phase),
      el('td', {}, bar(o.budget ? o.evaluations / o.budget : 0), ` ${o.evaluations}/${o.budget}`),
      el('td', {}, o.phase === 'running' ? `round ${o.round + 1}, stage ${o.stage}` : ''),
      el('td', {}, fmt(o.baseline_us)), el('td', {}, fmt(o.best_us)),
      el('td', {}, fmt(o.speedup, 3) + 'x'));
    row.onclick = () => selectOperator(o.name);
    return row;
  }));
  document.getElementById('cdf').replaceChildren(speedupCdf(c.operator_results));
  document.getElementById('failures').replaceChildren(failureBreakdown(c.operator_results));
  if (!state.operator && c.operator_results.length) {
    await selectOperator(c.operator_results[0].name);
  } else if (state.operator) {
    await refreshOperator();
  }
}

async function selectOperator(name) {
  state.operator = name;
  await refreshOperator();
}

async function refreshOperator() {
  if (!state.campaign || !state.operator) return;
  const o = await api('/campaigns/' + encodeURIComponent(state.campaign) + '/operators/' +
                      encodeURIComponent(state.operator));
  document.getElementById('operator-detail').hidden = false;
  document.getElementById('operator-name').textContent =
    `${o.name}: ${fmt(o.baseline_us)} -> ${fmt(o.best_us)} us (${fmt(o.speedup, 3)}x)`;
  document.getElementById('trajectory-chart').replaceChildren(trajectoryChart(o.trajectory));
  document.getElementById('diff').replaceChildren(...sideBySide(o.kernel_diff));
  document.getElementById('tiling-diff').replaceChildren(...sideBySide(o.tiling_diff));
  document.querySelector('#candidates tbody').replaceChildren(...o.candidates.map((c) =>
    el('tr', {}, el('td', {}, c.seq), el('td', {}, c.round + 1), el('td', {}, c.stage),
      el('td', {}, c.role), el('td', {}, c.status + (c.error_kind ? ' / ' + c.error_kind : '')),
      el('td', {}, fmt(c.latency_us)), el('td', {}, c.accepted ? 'yes' : ''),
      el('td', {}, c.tuple_ids.join(', ')), el('td', {}, c.message))));
}

// Axes and a frame; returns { svg, x, y } with scale functions.
function plot(width, height, xMax, yMin, yMax, xLabel, yLabel) {
  const m = { l: 60, r: 15, t: 10, b: 35 };
  const svg = el('svg:svg', { width, height, viewBox: `0 0 ${width} ${height}` });
  const x = (v) => m.l + (v / (xMax || 1)) * (width - m.l - m.r);
  const y = (v) => height - m.b - ((v - yMin) / ((yMax - yMin) || 1)) * (height - m.t - m.b);
  svg.append(el('svg:line', { x1: m.l, y1: height - m.b, x2: width - m.r, y2: height - m.b, stroke: '#333' }));
  svg.append(el('svg:line', { x1: m.l, y1: m.t, x2: m.l, y2: height - m.b, stroke: '#333' }));
  for (let i = 0; i <= 4; i++) {
    const xv = (xMax * i) / 4;
    const yv = yMin + ((yMax - yMin) * i) / 4;
    svg.append(el('svg:text', { x: x(xv), y: height - m.b + 14, 'text-anchor': 'middle' }, fmt(xv, xMax < 8 ? 1 : 0)));
    svg.append(el('svg:text', { x: m.l - 4, y: y(yv) + 4, 'text-anchor': 'end' }, fmt(yv, 1)));
  }
  svg.append(el('svg:text', { x: (width + m.l) / 2, y: height - 3, 'text-anchor': 'middle' }, xLabel));
  svg.append(el('svg:text', { x: 12, y: height / 2, transform: `rotate(-90 12 ${height / 2})`, 'text-anchor': 'middle' }, yLabel));
  return { svg, x, y };
}

// The paper's Fig. 4: best latency after each evaluation as a step line, stage switches as
// dashed vertical lines labelled with the new stage.
function trajectoryChart(points) {
  if (!points.length) return el('p', {}, 'no evaluations yet');
  const xMax = Math.max(1, points[points.length - 1].evaluation);
  const ys = points.map((p) => p.best_us);
  const yMin = Math.min(...ys) * 0.95;
  const yMax = Math.max(...ys) * 1.02;
  const { svg, x, y } = plot(560, 260, xMax, yMin, yMax, 'evaluations', 'best latency (us)');
  svg.id = 'trajectory';
  let d = `M${x(points[0].evaluation)},${y(points[0].best_us)}`;
  for (let i = 1; i < points.length; i++) {
    d += ` H${x(points[i].evaluation)} V${y(points[i].best_us)}`;
    if (points[i].stage !== points[i - 1].stage && points[i - 1].stage !== 0) {
      svg.append(el('svg:line', { class: 'stage-switch', x1: x(points[i].evaluation), x2: x(points[i].evaluation),
        y1: y(yMin), y2: y(yMax), stroke: '#f59e0b', 'stroke-dasharray': '4' }));
      svg.append(el('svg:text', { x: x(points[i].evaluation) + 3, y: 20 }, 'S' + points[i].stage));
    }
  }
  svg.append(el('svg:path', { class: 'trajectory-line', d, fill: 'none', stroke: '#2563eb', 'stroke-width': 2 }));
  for (const p of points) {
    svg.append(el('svg:circle', { cx: x(p.evaluation), cy: y(p.best_us), r: 3, fill: '#2563eb' }));
  }
  return svg;
}

// The paper's Fig. 2: fraction of operators with speedup above p.
function speedupCdf(ops) {
  const s = ops.filter((o) => o.phase !== 'failed' && o.baseline_us > 0).map((o) => o.speedup)
    .sort((a, b) => a - b);
  if (!s.length) return el('p', {}, 'no operators with a baseline yet');
  const xMax = Math.max(2, s[s.length - 1] * 1.05);
  const { svg, x, y } = plot(420, 220, xMax, 0, 1, 'speedup p', 'fast_p');
  svg.id = 'cdf-chart';
  let d = `M${x(0)},${y(1)}`;
  s.forEach((v, i) => { d += ` H${x(v)} V${y((s.length - i - 1) / s.length)}`; });
  d += ` H${x(xMax)}`;
  svg.append(el('svg:path', { d, fill: 'none', stroke: '#16a34a', 'stroke-width': 2 }));
  return svg;
}

function failureBreakdown(ops) {
  const totals = {};
  for (const o of ops) for (const [k, n] of Object.entries(o.failures || {})) totals[k] = (totals[k] || 0) + n;
  const entries = Object.entries(totals).sort((a, b) => b[1] - a[1]);
  if (!entries.length) return el('p', {}, 'no failed candidates');
  const max = entries[0][1];
  return el('table', { id: 'failure-table' }, ...entries.map(([k, n]) =>
    el('tr', {}, el('td', {}, k), el('td', {}, bar(n / max)), el('td', {}, n))));
}

// A unified diff as two aligned columns: the baseline on the left, the best kernel on the right.
function sideBySide(diff) {
  if (!diff) return [el('div', {}, 'identical to the baseline'), el('div', {}, '')];
  const cells = [];
  let dels = [];
  let adds = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
      cells.push(el('div', { class: i < dels.length ? 'del' : '' }, dels[i] ?? ''));
      cells.push(el('div', { class: i < adds.length ? 'add' : '' }, adds[i] ?? ''));
    }
    dels = [];
    adds = [];
  };
  for (const line of diff.split('\n')) {
    // "\ No newline at end of file" annotates the line before it; it is no line of either file.
    if (line.startsWith('---') || line.startsWith('+++') || line.startsWith('\\')) continue;
    if (line.startsWith('@@')) {
      flush();
      cells.push(el('div', { class: 'hunk' }, line), el('div', { class: 'hunk' }, line));
    } else if (line.startsWith('-')) {
      dels.push(line.slice(1));
    } else if (line.startsWith('+')) {
      adds.push(line.slice(1));
    } else {
      flush();
      cells.push(el('div', {}, line.slice(1)), el('div', {}, line.slice(1)));
    }
  }
  flush();
  return cells;
}

async function searchBank(event) {
  if (event) event.preventDefault();
  const q = document.getElementById('bank-query').value;
  const bank = await api('/bank?limit=200&q=' + encodeURIComponent(q));
  document.getElementById('bank-total').textContent = bank.total + ' tuples';
  document.getElementById('bank-list').replaceChildren(...bank.tuples.map((t) => {
    const li = el('li', {}, el('b', {}, t.title || t.id), ' - ', t.bottleneck);
    li.onclick = async () => {
      const full = await api('/bank/' + encodeURIComponent(t.id));
      document.getElementById('bank-tuple').textContent =
        `${full.title}\n\nBottleneck: ${full.bottleneck}\n\n${full.description || ''}\n\n${full.code_diff || ''}`;
    };
    return li;
  }));
}

// Redraws at most once per second however many events arrive.
let pending = null;
function scheduleRefresh() {
  if (pending) return;
  pending = setTimeout(async () => {
    pending = null;
    await refreshCampaigns().catch(showError);
    await refreshCampaign().catch(showError);
    await refreshWorkers().catch(showError);
  }, 1000);
}

// EventSource cannot send an Authorization header, so the stream is read with fetch.
async function followEvents() {
  const live = document.getElementById('live');
  let since = 0;
  for (;;) {
    try {
      const res = await fetch('/api/v1/events?since=' + since, { headers });
      if (!res.ok) throw new Error('events: ' + res.status);
      live.textContent = 'live';
      live.className = 'live on';
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (\d+)$/m.exec(frame);
          if (id) since = Number(id[1]);
          if (/^data: /m.test(frame)) scheduleRefresh();
        }
      }
    } catch (e) {
      showError(e);
    }
    live.textContent = 'offline, reconnecting';
    live.className = 'live off';
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
}

function showError(e) {
  console.error(e);
}

document.getElementById('bank-search').addEventListener('submit', searchBank);
document.querySelectorAll('#campaign-detail button').forEach((b) => {
  b.onclick = async () => {
    await api(`/campaigns/${encodeURIComponent(state.campaign)}/${b.dataset.action}`, { method: 'POST' })
      .catch((e) => alert(e.message));
    scheduleRefresh();
  };
});
refreshCampaigns().catch(showError);
refreshWorkers().catch(showError);
searchBank().catch(showError);
followEvents();
