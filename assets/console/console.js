// The operator console's page script: plain DOM, no framework, no network
// access beyond this server. Every text from the server (tool names,
// descriptions, errors) is set as textContent, never parsed as HTML.
'use strict';
(() => {
  const TOKEN_KEY = 'mcp-oxp-bridge.console.token';
  const REFRESH_MS = 2000;
  const $ = (id) => document.getElementById(id);
  const state = { overview: null, view: 'upstreams', tools: [], chosen: null, timer: 0, tryTool: null };

  /** h('div', {class: 'x'}, child, 'text', …): an element; attributes by setAttribute only. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v === true ? '' : String(v));
    for (const c of children) if (c !== undefined && c !== null) el.append(c instanceof Node ? c : String(c));
    return el;
  }
  const svg = (tag, attrs) => {
    const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
    return el;
  };
  const json = (v) => JSON.stringify(v, null, 2);
  /**
   * A name as text with line-break opportunities (<wbr>) after each . _ @ : / - (a tool, a principal, an outcome, a
   * JSON key): a column too narrow for it breaks it there, not mid-word. The text itself is unchanged.
   */
  const breakable = (text, at = /(?<=[._@:/-])(?=.)/) =>
    String(text)
      .split(at)
      .flatMap((part, i) => (i ? [h('wbr'), part] : [part]));
  /** A trace id (32 hex digits): a break opportunity every 8, as a call_id's are its dashes. */
  const traceBreaks = /(?<=^(?:[0-9a-f]{8})+)(?=.)/i;
  // A duration as the log line writes it (0.1 ms), so that a call_id's duration reads the same in both.
  const ms = (v) => (v === null || v === undefined ? '–' : `${Math.round(v * 10) / 10} ms`);
  // An axis label: short.
  const axisMs = (v) => (v < 10 ? `${v.toFixed(1)} ms` : v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(1)} s`);
  const pct = (n, d) => (d ? `${((100 * n) / d).toFixed(1)} %` : '–');
  const time = (t) => (t ? new Date(t).toLocaleTimeString() : '–');
  const status = (text, bad) => {
    $('status').textContent = text;
    $('status').className = bad ? 'error' : 'muted';
  };

  // ------------------------------------------------------------ auth + API
  const token = () => sessionStorage.getItem(TOKEN_KEY);
  const authHeaders = () => (token() ? { authorization: `Bearer ${token()}` } : {});

  class AuthError extends Error {}

  async function api(path, init) {
    const res = await fetch(`api/${path}`, { ...init, headers: { ...authHeaders(), ...(init && init.headers) }, credentials: 'omit', cache: 'no-store' });
    if (res.status === 401 || res.status === 403) throw new AuthError(res.status === 401 ? 'The token was refused.' : 'This token may not use the console.');
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
    return body;
  }

  function showLogin(message) {
    clearInterval(state.timer);
    $('main').hidden = true;
    $('login').hidden = false;
    $('forget').hidden = true;
    $('login-error').textContent = message || '';
    $('token').focus();
  }

  // start, refresh, loadTools, showTool and chooseTry catch their own errors and show them on the page:
  // callers start them with `void` and nothing is left to reject.
  async function start() {
    try {
      state.overview = await api('overview');
    } catch (error) {
      if (error instanceof AuthError) return showLogin(token() ? error.message : '');
      return status(`The console API is not reachable: ${error.message}`, true);
    }
    const o = state.overview;
    $('command').textContent = `${o.command} ${o.server.version}`;
    $('login').hidden = true;
    $('main').hidden = false;
    $('forget').hidden = !token();
    $('caller').textContent = o.caller ? `as ${o.caller.name}` : '';
    $('caller').title = o.caller ? `${o.caller.kind}${o.caller.groups.length ? `, groups ${o.caller.groups.join(', ')}` : ''}` : '';
    if (o.asPrincipal) void loadPrincipals();
    $('try-how').textContent =
      o.command === 'bridge'
        ? 'The call is a normal MCP tools/call, sent by this page to /mcp (revision 2026-07-28) with your token; the answer is then shown as each revision receives it.'
        : 'The call is a normal OXP POST /tools/call, sent by this page with your token.';
    $('redaction').textContent = o.showArguments
      ? '(values shown; credential-like keys redacted)'
      : '(arguments and results redacted: only their keys and types)';
    route();
    clearInterval(state.timer);
    state.timer = setInterval(() => void refresh(), REFRESH_MS);
  }

  $('login-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const value = $('token').value.trim();
    if (!value) return;
    sessionStorage.setItem(TOKEN_KEY, value);
    $('token').value = '';
    void start();
  });
  $('forget').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    showLogin('');
  });

  // ------------------------------------------------------------ routing
  function route() {
    const [view, ...rest] = decodeURIComponent(location.hash.slice(1)).split('/');
    state.view = ['upstreams', 'tools', 'calls', 'try'].includes(view) ? view : 'upstreams';
    const arg = rest.join('/');
    for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.view === state.view);
    for (const s of document.querySelectorAll('.view')) s.hidden = s.id !== `view-${state.view}`;
    if (state.view === 'tools') void loadTools().then(() => arg && showTool(arg));
    else if (state.view === 'try') void loadTools().then(() => chooseTry(arg || (state.tools[0] && state.tools[0].name)));
    else void refresh();
  }
  window.addEventListener('hashchange', () => state.overview && route());

  async function refresh() {
    try {
      if (state.view === 'upstreams') renderUpstreams(await api('upstreams'));
      else if (state.view === 'calls') renderCalls(await api('calls?limit=50'));
      $('live').textContent = `updated ${new Date().toLocaleTimeString()}`;
    } catch (error) {
      if (error instanceof AuthError) showLogin(error.message);
      else status(error.message, true);
    }
  }

  // ------------------------------------------------------------ upstreams
  function renderUpstreams(data) {
    const list = $('upstream-list');
    list.replaceChildren(
      ...data.upstreams.map((u) => {
        const t = u.window.total;
        const badge = u.ready ? h('span', { class: 'badge ok' }, u.state || 'ready') : h('span', { class: 'badge bad' }, u.state || 'not ready');
        const circuit = u.circuit
          ? h('span', { class: `badge ${u.circuit === 'closed' ? 'ok' : u.circuit === 'open' ? 'bad' : 'warn'}` }, `circuit ${u.circuit}`)
          : null;
        const facts = h('dl', { class: 'facts' });
        const fact = (k, v) => facts.append(h('dt', {}, k), h('dd', {}, v));
        if (u.url) fact('URL', u.url);
        if (u.transport) fact('Transport', `${u.transport}${u.protocolVersion ? ` (MCP ${u.protocolVersion})` : ''}`);
        fact('Tools', u.tools);
        // Tools the server listed that OXP does not publish (e.g. task-required ones): the log line says why for each.
        if (typeof u.listed === 'number' && u.listed > u.tools)
          fact(
            'Not published',
            `${u.listed - u.tools} of the ${u.listed} tools the server lists: left out by a tool policy, or not publishable over OXP (a warn log line names each of those)`,
          );
        fact('Last refresh', u.lastRefresh ? new Date(u.lastRefresh).toLocaleString() : '–');
        if (u.lastError) fact('Last error', u.lastError);
        const hint = u.ready
          ? null
          : h(
              'p',
              { class: 'hint' },
              `Its tools are not listed yet. The ${commandName()} retries on its own: check that it is running and reachable from here${u.lastError ? ' (the last error says what failed)' : ''}.`,
            );
        fact('Last 5 min', `${t.count} calls, ${t.ratePerSecond.toFixed(2)}/s · p50 ${ms(t.p50)} · p99 ${ms(t.p99)} · errors ${pct(t.errors, t.count)}`);
        // A label says what an upstream is where its name and URL do not (the embedded demo toolkit on a random port).
        const label = u.label ? h('span', { class: 'muted upstream-label' }, u.label) : null;
        return h(
          'article',
          { class: 'card upstream', 'data-name': u.name },
          h('h3', {}, u.name, label, badge, circuit),
          hint,
          facts,
          chart(u.window),
          legend(),
        );
      }),
    );
  }

  function legend() {
    return h(
      'div',
      { class: 'legend' },
      h('span', { class: 'k k50' }, 'p50'),
      h('span', { class: 'k k99' }, 'p99'),
      h('span', { class: 'k kc' }, 'calls'),
      h('span', { class: 'k ke' }, 'errors'),
    );
  }

  /** Latency lines (p50, p99) over call and error bars, one step per slot of the window. */
  function chart(window) {
    const W = 600,
      H = 150,
      L = 44,
      R = 8,
      T = 10,
      B = 18;
    const slots = window.slots;
    const step = (W - L - R) / slots.length;
    const maxCalls = Math.max(1, ...slots.map((s) => s.count));
    const maxMs = Math.max(1, ...slots.map((s) => s.p99 || 0));
    const y = (v) => T + (H - T - B) * (1 - v / maxMs);
    const el = svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'latency and calls over the last 5 minutes' });
    for (const f of [0, 0.5, 1]) {
      el.append(svg('line', { class: 'grid', x1: L, x2: W - R, y1: y(maxMs * f), y2: y(maxMs * f) }));
      const label = svg('text', { x: 2, y: y(maxMs * f) + 3 });
      label.textContent = axisMs(maxMs * f);
      el.append(label);
    }
    slots.forEach((s, i) => {
      const x = L + i * step + 1;
      const hc = ((H - T - B) * s.count) / maxCalls;
      if (s.count) el.append(svg('rect', { class: 'calls', x, y: H - B - hc, width: Math.max(1, step - 2), height: hc }));
      const he = ((H - T - B) * s.errors) / maxCalls;
      if (s.errors) el.append(svg('rect', { class: 'errors', x, y: H - B - he, width: Math.max(1, step - 2), height: he }));
    });
    // A line joins neighbouring slots only: a slot without calls has no latency, and the line stops there.
    for (const key of ['p50', 'p99']) {
      const at = (i) => [(L + (i + 0.5) * step).toFixed(1), y(slots[i][key]).toFixed(1)];
      let run = [];
      const endRun = () => {
        if (run.length > 1) el.append(svg('polyline', { class: key, points: run.map((p) => p.join(',')).join(' ') }));
        run = [];
      };
      slots.forEach((s, i) => {
        if (s[key] === null) return endRun();
        const [cx, cy] = at(i);
        run.push([cx, cy]);
        el.append(svg('circle', { class: `${key} dot`, cx, cy, r: 3 }));
      });
      endRun();
    }
    const axis = (x, text, anchor) => {
      const t = svg('text', { x, y: H - 4, 'text-anchor': anchor });
      t.textContent = text;
      el.append(t);
    };
    axis(L, `−${Math.round((slots.length * window.slotMs) / 60000)} min`, 'start');
    axis(W - R, 'now', 'end');
    return el;
  }

  // ------------------------------------------------------------ tools
  let searchTimer = 0;
  $('tool-search').addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void loadTools(), 150);
  });

  // ---------------------------------------------- tools as one principal sees them
  async function loadPrincipals() {
    try {
      const data = await api('principals');
      const select = $('tool-as');
      const current = select.value;
      const label = (p) => `${p.name} (${p.kind}${p.groups.length ? `; ${p.groups.join(', ')}` : ''})`;
      select.replaceChildren(
        h('option', { value: '' }, 'everyone (the whole catalog)'),
        ...data.principals.map((p) => h('option', { value: p.id }, label(p))),
        h('option', { value: data.custom.as }, 'someone else (an OAuth user)…'),
      );
      select.value = current;
      // Without an access policy every caller sees every tool: a selector would change nothing.
      $('tool-as-bar').hidden = !data.policy.active;
      if (!data.policy.active) select.value = '';
    } catch (error) {
      if (error instanceof AuthError) showLogin(error.message);
      else status(error.message, true);
    }
  }

  /** The `as` part of the tools query (Tools view only: Try a tool lists every tool). */
  function asQuery() {
    const as = $('tool-as').value;
    $('tool-as-custom').hidden = as !== 'custom';
    if (!as || state.view !== 'tools') return '';
    const custom = as === 'custom' ? `&name=${encodeURIComponent($('tool-as-name').value)}&groups=${encodeURIComponent($('tool-as-groups').value)}` : '';
    if (as === 'custom' && !$('tool-as-name').value.trim()) return null;
    return `&as=${encodeURIComponent(as)}${custom}${$('tool-as-hidden').checked ? '&hidden=1' : ''}`;
  }
  for (const id of ['tool-as', 'tool-as-hidden']) $(id).addEventListener('change', () => void loadTools());
  for (const id of ['tool-as-name', 'tool-as-groups'])
    $(id).addEventListener('input', () => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => void loadTools(), 250);
    });

  /** Which rule decided for a tool: its id, else its place in access.rules; none: access.default. */
  function why(access) {
    const by = access.rule ? `rule ${access.rule.id ?? `access.rules[${access.rule.index}]`}` : 'access.default';
    return `${access.allowed ? 'visible' : 'hidden'}: ${by}`;
  }

  function toolCount(data) {
    const more = data.total > data.tools.length ? `, first ${data.tools.length} shown` : '';
    if (!data.as) return data.total ? `(${data.total}${more})` : '(none)';
    return `(as ${data.as.name}: ${data.as.visible} visible, ${data.as.hidden} hidden${more})`;
  }

  // ---------------------------------------------- empty states: why, and what to do
  const para = (...content) => h('p', {}, ...content);
  const upstreamsLink = () => h('a', { href: '#upstreams' }, 'Upstreams');
  const commandName = () => (state.overview && state.overview.command === 'bridge' ? 'bridge' : 'oxp-server');

  /** The upstreams that have not listed their tools yet, each with its last error; null when every one has. */
  function waitingUpstreams(data) {
    const u = data.upstreams;
    if (!u || !u.waiting.length) return null;
    return h(
      'div',
      {},
      para(
        u.listed === 0
          ? 'No upstream has listed its tools yet, so there is no tool to show.'
          : `${u.waiting.length} of ${u.total} upstreams have not listed their tools yet: their tools are missing here.`,
      ),
      h('ul', {}, ...u.waiting.map((w) => h('li', {}, h('strong', {}, w.name), w.lastError ? `: ${w.lastError}` : ': connecting…'))),
      para(
        `The ${commandName()} retries on its own. Check that each one is running and reachable from here; the `,
        upstreamsLink(),
        ' view shows their state.',
      ),
    );
  }

  /** What a tool list with nothing in it says (why, and what to do), or a warning for a partial one; null otherwise. */
  function toolsEmptyState(data, query) {
    const waiting = waitingUpstreams(data);
    if (data.tools.length) return waiting && { warn: true, content: waiting };
    const parts = [];
    if (query) parts.push(para(`No tool matches “${query}”.`, waiting ? '' : ' Clear the search to list every tool.'));
    else if (data.as && data.as.hidden > 0)
      parts.push(
        para(`No tool is visible to ${data.as.name}: the access policy hides all ${data.as.hidden} from them.`),
        para('Tick “also the tools hidden from them” to see the rule that hides each.'),
      );
    else if (!waiting)
      parts.push(
        para('The upstreams list no tools.'),
        para(
          'Their servers publish none, or a tool policy in the configuration keeps none (allow, deny). The ',
          upstreamsLink(),
          ' view shows what each one lists.',
        ),
      );
    if (waiting) parts.push(waiting);
    return { content: h('div', {}, ...parts) };
  }

  function showEmptyState(el, state) {
    el.hidden = !state;
    el.classList.toggle('warn', Boolean(state && state.warn));
    el.replaceChildren(...(state ? [state.content] : []));
  }

  async function loadTools() {
    try {
      const as = asQuery();
      if (as === null) return;
      const query = $('tool-search').value;
      const data = await api(`tools?q=${encodeURIComponent(query)}${as}`);
      state.tools = data.tools;
      $('tool-count').textContent = toolCount(data);
      const empty = toolsEmptyState(data, query.trim());
      showEmptyState($('tool-empty'), empty);
      // Try a tool: no empty select and form, the same reason instead.
      const none = data.tools.length === 0;
      $('try-pick').hidden = $('try-form').hidden = $('tool-split').hidden = none;
      showEmptyState($('try-empty'), none && empty ? { content: empty.content.cloneNode(true) } : null);
      $('tool-list').replaceChildren(
        ...data.tools.map((t) => {
          const denied = t.access && !t.access.allowed;
          const li = h(
            'li',
            { 'data-name': t.name, class: [state.chosen === t.name ? 'active' : '', denied ? 'denied' : ''].join(' ').trim() || null },
            ...breakable(t.name),
            h('small', {}, `${t.upstream ?? ''}${t.description ? ` · ${t.description}` : ''}`),
            t.access ? h('small', { class: 'why' }, why(t.access)) : null,
          );
          li.addEventListener('click', () => (location.hash = `#tools/${encodeURIComponent(t.name)}`));
          return li;
        }),
      );
      fillTrySelect();
    } catch (error) {
      if (error instanceof AuthError) showLogin(error.message);
      else status(error.message, true);
    }
  }

  async function showTool(name) {
    state.chosen = name;
    for (const li of $('tool-list').children) li.classList.toggle('active', li.dataset.name === name);
    const detail = $('tool-detail');
    try {
      const tool = await api(`tools/${encodeURIComponent(name)}`);
      // An id without its version opens the latest: the list marks the tool it resolved to.
      state.chosen = tool.name;
      for (const li of $('tool-list').children) li.classList.toggle('active', li.dataset.name === tool.name);
      const head = h(
        'h3',
        {},
        h('span', {}, ...breakable(tool.name)),
        h('span', { class: 'muted' }, tool.upstream ? `from ${tool.upstream}` : ''),
        h('a', { href: `#try/${encodeURIComponent(tool.name)}` }, 'Try it'),
      );
      if (tool.revisions) {
        detail.replaceChildren(
          head,
          h('p', { class: 'muted' }, `OXP tool ${tool.oxpId}. What each MCP revision receives for tools/list (this tool's entry in the answer):`),
          h('p', { class: 'muted legend-diff' }, h('span', { class: 'changed-key' }, 'Marked'), ': what differs from the revision to its left.'),
          columns(tool.revisions, true),
        );
      } else {
        detail.replaceChildren(head, columns({ 'OXP definition (GET /tools)': tool.oxpDefinition, [`MCP tool (${tool.upstream})`]: tool.mcpTool }));
      }
    } catch (error) {
      detail.replaceChildren(h('p', { class: 'error' }, error.message));
    }
  }

  /**
   * Side-by-side JSON, one column per key. With `compare` (the same answer as each revision receives it), each column
   * marks what differs from the column to its left and names what it lacks; a column equal to it says so.
   */
  function columns(byName, compare) {
    const entries = Object.entries(byName);
    return h(
      'div',
      { class: 'columns' },
      ...entries.map(([name, value], i) => {
        const left = i > 0 ? entries[i - 1] : undefined;
        const diff = compare && left ? differences(left[1], value) : { changed: new Set(), removed: [] };
        const same = left !== undefined && json(left[1]) === json(value);
        const n = diff.changed.size;
        const parts = [
          n ? `${n} ${n === 1 ? 'field differs' : 'fields differ'} from ${left && left[0]} (marked)` : '',
          diff.removed.length ? `not here: ${diff.removed.map(dotted).join(', ')}` : '',
        ].filter(Boolean);
        const note = same ? h('span', { class: 'muted' }, 'same as left') : parts.length ? h('span', { class: 'diff-note' }, parts.join('; ')) : null;
        return h(
          'div',
          { class: 'col', 'data-revision': name, 'data-removed': diff.removed.length ? diff.removed.join(' ') : null },
          h('h4', {}, name, note),
          h('pre', { class: 'json' }, ...jsonLines(value, diff.changed)),
        );
      }),
    );
  }

  const pointer = (path, key) => `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
  const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
  /** A JSON pointer as a person reads it: /tools/0/annotations → tools[0].annotations. */
  const dotted = (path) =>
    path
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((out, k) => (/^\d+$/.test(k) ? `${out}[${k}]` : out ? `${out}.${k}` : k), '');

  /**
   * Where `right` differs from `left`, as JSON pointers: the smallest paths whose value changed or appeared (inside an
   * object both have, or an array of the same length, the members that differ), and the members `right` lacks.
   */
  function differences(left, right, path = '', out = { changed: new Set(), removed: [] }) {
    if (JSON.stringify(left) === JSON.stringify(right)) return out;
    if (isObject(left) && isObject(right)) {
      for (const key of Object.keys(right)) {
        if (key in left) differences(left[key], right[key], pointer(path, key), out);
        else out.changed.add(pointer(path, key));
      }
      for (const key of Object.keys(left)) if (!(key in right)) out.removed.push(pointer(path, key));
    } else if (Array.isArray(left) && Array.isArray(right) && left.length === right.length) {
      right.forEach((v, i) => differences(left[i], v, pointer(path, i), out));
    } else out.changed.add(path);
    return out;
  }

  /**
   * Pretty JSON as one element per line (its JSON pointer in data-path, its depth in --d): a long line wraps between
   * values or at a string's spaces, never inside a key, a number or a literal, and what it continues on is indented
   * under it (console.css). Lines at `changed` paths are marked, their content tinted. The text is the JSON itself.
   */
  function jsonLines(value, changed) {
    const lines = [];
    const line = (depth, path, mark, ...parts) => {
      const el = h('div', { class: ['ln', mark].filter(Boolean).join(' ') || null, 'data-path': path }, '  '.repeat(depth), ...parts);
      el.style.setProperty('--d', String(depth));
      lines.push(el);
    };
    const scalar = (v) =>
      h('span', { class: typeof v === 'string' ? 'v s' : typeof v === 'number' ? 'v n' : 'v l' }, v === undefined ? 'null' : JSON.stringify(v));
    const walk = (v, depth, path, key, comma, inChanged) => {
      const here = changed.has(path);
      const mark = here ? 'changed' : inChanged ? 'within' : '';
      const label = key === undefined ? [] : [h('span', { class: 'k' }, ...breakable(JSON.stringify(key), /(?<=[./])(?=.)/)), ': '];
      const tail = comma ? ',' : '';
      const children = Array.isArray(v) ? v.map((x, i) => [i, x]) : isObject(v) ? Object.entries(v) : undefined;
      if (!children) return line(depth, path, mark, ...label, scalar(v), tail);
      const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
      if (children.length === 0) return line(depth, path, mark, ...label, open + close, tail);
      line(depth, path, mark, ...label, open);
      children.forEach(([k, x], i) => walk(x, depth + 1, pointer(path, k), Array.isArray(v) ? undefined : k, i < children.length - 1, here || inChanged));
      const end = h('div', { class: ['ln', here || inChanged ? 'within' : ''].filter(Boolean).join(' ') }, '  '.repeat(depth), close + tail);
      end.style.setProperty('--d', String(depth));
      lines.push(end);
    };
    walk(value, 0, '', undefined, false, false);
    return lines;
  }

  // ------------------------------------------------------------ calls
  /** Each outcome's words come with the calls (`outcomes`: src/console/outcome-words.ts): failed or not, what it means. */
  let outcomeWords = {};
  const outcomeClass = (o) => (o === 'success' ? 'outcome-success' : outcomeWords[o]?.failed ? 'outcome-bad' : 'outcome-other');

  /** The outcomes listed in the Calls view that need saying, each with what it means. */
  function outcomeHelp(data) {
    outcomeWords = data.outcomes ?? {};
    const items = Object.keys(outcomeWords)
      .filter((o) => outcomeWords[o].help)
      .sort();
    const help = $('outcome-help');
    help.hidden = items.length === 0;
    help.replaceChildren(
      ...items.flatMap((o) => [h('dt', {}, o), h('dd', {}, ...outcomeWords[o].help.map((part) => (part === 'upstreams' ? upstreamsLink() : part)))]),
    );
  }

  function callsEmptyState(data) {
    if (data.recent.length) return null;
    const o = state.overview;
    const where = o.command === 'bridge' ? `Every tools/call sent to /${o.endpoint}` : 'Every POST /tools/call';
    return {
      content: h(
        'div',
        {},
        para(`No calls since the ${commandName()} started.`),
        para(`${where} appears here once answered, whoever sends it. Send one from `, h('a', { href: '#try' }, 'Try a tool'), '.'),
      ),
    };
  }

  function renderCalls(data) {
    showEmptyState($('calls-empty'), callsEmptyState(data));
    outcomeHelp(data);
    $('tool-stats').tBodies[0].replaceChildren(
      ...data.tools.map((t) =>
        h(
          'tr',
          { 'data-tool': t.tool },
          h('td', { class: 'tool' }, ...breakable(t.tool)),
          h('td', { class: 'num' }, t.window.ratePerSecond.toFixed(2)),
          h('td', { class: 'num' }, t.window.count),
          h('td', { class: 'num' }, pct(t.window.errors, t.window.count)),
          h('td', { class: 'num' }, ms(t.window.p50)),
          h('td', { class: 'num' }, ms(t.window.p99)),
          h(
            'td',
            { class: 'outcomes' },
            ...breakable(
              Object.entries(t.outcomes)
                .map(([o, n]) => `${o} ${n}`)
                .join(' · '),
            ),
          ),
        ),
      ),
    );
    // Arguments and result (JSON): breaks after a comma or a colon first.
    const code = (v) => h('code', {}, ...breakable(typeof v === 'string' ? v : JSON.stringify(v), /(?<=[,:])(?=.)/));
    const id = (v, at) => h('code', {}, ...breakable(v, at));
    // Each cell names its column (data-label): a narrow window shows a call as a labelled block (console.css).
    const labels = [...$('recent-calls').tHead.rows[0].cells].map((th) => th.textContent);
    const cell = (i, attrs, ...content) => h('td', { ...attrs, 'data-label': labels[i] }, ...content);
    $('recent-calls').tBodies[0].replaceChildren(
      ...data.recent.map((c) =>
        h(
          'tr',
          { 'data-call-id': c.callId || '' },
          cell(0, { class: 'time' }, time(c.at)),
          cell(1, { class: 'tool' }, ...breakable(c.tool)),
          cell(2, { class: 'principal', title: c.principalKind || '' }, ...breakable(c.principal ?? '–')),
          cell(3, { class: 'revision' }, c.revision),
          // A call run as an MCP task says so beside its outcome: the task's state, its id on hover.
          cell(
            4,
            { class: `outcome ${outcomeClass(c.outcome)}`, title: c.task ? `task ${c.task.id}` : '' },
            ...breakable(c.task ? `${c.outcome} · task ${c.task.state}` : c.outcome),
          ),
          cell(5, { class: 'num duration' }, ms(c.durationMs)),
          cell(6, { class: 'id' }, c.callId ? id(c.callId) : '–'),
          cell(7, { class: 'id' }, c.traceId ? id(c.traceId, traceBreaks) : '–'),
          cell(8, { class: 'value' }, code(c.arguments)),
          cell(9, { class: 'value' }, c.result === null ? '–' : code(c.result)),
        ),
      ),
    );
  }

  // ------------------------------------------------------------ try a tool
  function fillTrySelect() {
    const select = $('try-tool');
    const current = select.value;
    select.replaceChildren(...state.tools.map((t) => h('option', { value: t.name }, t.name)));
    if (current) select.value = current;
  }
  $('try-tool').addEventListener('change', () => (location.hash = `#try/${encodeURIComponent($('try-tool').value)}`));

  async function chooseTry(name) {
    if (!name) return;
    $('try-tool').value = name;
    const form = $('try-form');
    $('try-result').replaceChildren();
    try {
      state.tryTool = await api(`tools/${encodeURIComponent(name)}`);
    } catch (error) {
      return form.replaceChildren(h('p', { class: 'error' }, error.message));
    }
    $('try-tool').value = state.tryTool.name;
    const schema = state.tryTool.inputSchema || {};
    const props = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const fields = [];
    for (const [key, p] of Object.entries(props)) {
      const id = `arg-${key}`;
      const type = Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type;
      let input;
      if (Array.isArray(p.enum))
        input = h('select', { id }, h('option', { value: '' }, ''), ...p.enum.map((v) => h('option', { value: JSON.stringify(v) }, String(v))));
      else if (type === 'boolean') input = h('input', { id, type: 'checkbox' });
      else if (type === 'number' || type === 'integer') input = h('input', { id, type: 'number', step: type === 'integer' ? '1' : 'any' });
      else if (type === 'string') input = h('input', { id, type: 'text' });
      else input = h('textarea', { id, placeholder: 'JSON' });
      if (p.default !== undefined) input.setAttribute('placeholder', `default: ${JSON.stringify(p.default)}`);
      input.dataset.key = key;
      if (required.has(key)) input.setAttribute('aria-required', 'true');
      input.dataset.kind = Array.isArray(p.enum)
        ? 'enum'
        : type === 'boolean'
          ? 'boolean'
          : type === 'number' || type === 'integer'
            ? 'number'
            : type === 'string'
              ? 'string'
              : 'json';
      fields.push(h('label', { for: id }, key, required.has(key) ? ' *' : ''), input);
      if (p.description) fields.push(h('div', { class: 'hint' }, p.description));
    }
    if (fields.length === 0) fields.push(h('span', { class: 'muted' }, 'No arguments.'), h('span'));
    form.replaceChildren(...fields, h('button', { type: 'submit' }, 'Call'));
  }

  function formArguments() {
    const args = {};
    for (const el of $('try-form').querySelectorAll('[data-key]')) {
      const kind = el.dataset.kind;
      if (kind === 'boolean') {
        args[el.dataset.key] = el.checked;
        continue;
      }
      if (el.value === '') continue;
      if (kind === 'number') args[el.dataset.key] = Number(el.value);
      else if (kind === 'string') args[el.dataset.key] = el.value;
      else args[el.dataset.key] = JSON.parse(el.value);
    }
    return args;
  }

  /** The required fields left empty (a checkbox is never empty), each marked; focus goes to the first. */
  function missingRequired() {
    const missing = [];
    for (const el of $('try-form').querySelectorAll('[data-key]')) {
      const empty = el.getAttribute('aria-required') === 'true' && el.dataset.kind !== 'boolean' && el.value.trim() === '';
      if (empty) missing.push(el);
      if (empty) el.setAttribute('aria-invalid', 'true');
      else el.removeAttribute('aria-invalid');
    }
    if (missing.length) missing[0].focus();
    return missing.map((el) => el.dataset.key);
  }

  $('try-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const out = $('try-result');
    const missing = missingRequired();
    if (missing.length)
      return out.replaceChildren(
        h(
          'p',
          { class: 'error', role: 'alert' },
          `Not sent: ${missing.length === 1 ? 'a required field is' : 'required fields are'} empty: ${missing.join(', ')}. Fill ${missing.length === 1 ? 'it' : 'them'} in, then call again.`,
        ),
      );
    let args;
    try {
      args = formArguments();
    } catch (error) {
      return out.replaceChildren(h('p', { class: 'error' }, `An argument is not valid JSON: ${error.message}`));
    }
    const name = state.tryTool.name;
    out.replaceChildren(h('p', { class: 'muted' }, 'Calling…'));
    try {
      if (state.overview.command === 'bridge') await tryMcp(name, args, out);
      else await tryOxp(name, args, out);
    } catch (error) {
      if (error instanceof AuthError) showLogin(error.message);
      else out.replaceChildren(h('p', { class: 'error' }, error.message));
    }
  });

  function traceparent() {
    const hex = (n) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, '0')).join('');
    return `00-${hex(16)}-${hex(8)}-01`;
  }

  /** One MCP tools/call (2026-07-28, stateless) to this server's /mcp, then the result per revision. */
  async function tryMcp(name, args, out) {
    const trace = traceparent();
    const res = await fetch('../mcp', {
      method: 'POST',
      credentials: 'omit',
      headers: {
        ...authHeaders(),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
        traceparent: trace,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name,
          arguments: args,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'mcp-oxp-bridge-console', version: state.overview.server.version },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    if (res.status === 401 || res.status === 403) throw new AuthError('The token was refused by /mcp.');
    const text = await res.text();
    const messages = (res.headers.get('content-type') || '').includes('text/event-stream')
      ? text
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => JSON.parse(l.slice(5)))
      : [JSON.parse(text)];
    const answer = messages.find((m) => m && m.id === 1) || messages[0] || {};
    const head = h('p', { class: 'muted' }, `POST /mcp → HTTP ${res.status} · trace id ${trace.split('-')[1]}`);
    if (!answer.result) return out.replaceChildren(head, columns({ 'JSON-RPC answer': answer }));
    const rendered = await api(`tools/${encodeURIComponent(name)}/render`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ result: answer.result }),
    });
    out.replaceChildren(head, h('p', { class: 'muted' }, 'The result as each MCP revision receives it:'), columns(rendered.revisions, true));
    refreshSoon();
  }

  /** One OXP POST /tools/call to this server. */
  async function tryOxp(name, args, out) {
    const res = await fetch('../tools/call', {
      method: 'POST',
      credentials: 'omit',
      headers: { ...authHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: name, input: args } }),
    });
    if (res.status === 401) throw new AuthError('The token was refused by /tools/call.');
    const body = await res.json().catch(() => ({}));
    out.replaceChildren(h('p', { class: 'muted' }, `POST /tools/call → HTTP ${res.status}`), columns({ 'OXP answer': body }));
    refreshSoon();
  }

  const refreshSoon = () => setTimeout(() => void refresh(), 50);

  void start();
})();
