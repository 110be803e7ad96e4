// The kasir dashboard: plain DOM, no framework, no inline script (served under a strict CSP).
// The access token lives in sessionStorage for this tab only.
const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'kasir.dashboard.token';
let pending = null; // { verificationToken, email }

function notice(text, ok = false) {
  $('notice').textContent = text;
  $('notice').className = ok ? 'ok' : '';
}

async function call(path, { method = 'GET', body, auth = true } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (auth && token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  const code = json.statusCode ?? json.status ?? res.status;
  if (code >= 400) {
    if (code === 401 && auth) signOut();
    throw new Error(json.message || `Request failed (${code})`);
  }
  return json.data;
}

function show(signedIn) {
  $('sign-in').hidden = signedIn;
  $('account').hidden = !signedIn;
  $('sign-out').hidden = !signedIn;
}

function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  show(false);
}

async function loadAccount() {
  const account = await call('/dashboard/api/account');
  $('org-name').textContent = account.orgName;
  $('client-id').textContent = account.clientId;
  $('client-secret').textContent = '••••••••••••';
  $('webhook-secret').textContent = '••••••••••••';
  $('webhook-form').elements.webhookUrl.value = account.webhookUrl ?? '';
  $('checkout-enabled').checked = account.checkoutEnabled;
  $('tolerance-form').elements.underpaymentTolerance.value = String(account.underpaymentTolerance);
  show(true);
  await Promise.all([loadDeposits(), loadDeliveries()]);
}

function cell(row, text, className) {
  const td = document.createElement('td');
  if (className) td.className = className;
  td.textContent = text;
  row.append(td);
  return td;
}

async function loadDeliveries() {
  const deliveries = await call('/dashboard/api/webhooks?limit=20');
  const body = $('deliveries');
  body.replaceChildren();
  for (const d of deliveries) {
    const row = document.createElement('tr');
    cell(row, new Date(d.createdAt).toLocaleString());
    cell(row, d.eventType);
    cell(row, d.depositId);
    cell(row, d.status, `status-${d.status}`);
    const attempts = cell(row, `${d.attemptCount}`);
    const list = document.createElement('ol');
    for (const a of d.attempts) {
      const li = document.createElement('li');
      li.textContent = `${new Date(a.attemptedAt).toLocaleTimeString()}: ${a.responseStatus ?? '-'} ${a.error ?? 'ok'} (${a.durationMs} ms)`;
      list.append(li);
    }
    attempts.append(list);
    const actions = cell(row, '');
    const resend = document.createElement('button');
    resend.type = 'button';
    resend.textContent = 'Send again';
    resend.addEventListener('click', () => run(async () => {
      await call(`/dashboard/api/webhooks/${encodeURIComponent(d.id)}/resend`, { method: 'POST' });
      notice('Queued to be sent again.', true);
      await loadDeliveries();
    }));
    actions.append(resend);
    body.append(row);
  }
}

// ---- Deposits: each with its webhook attempts; in sandbox mode, pay or expire a pending one ----
function attemptText(a) {
  const outcome = a.status !== null ? `${a.status}` : `failed: ${a.error}`;
  const hint = a.status === 401 || a.status === 403 ? ' (signature refused: the receiver must use this webhook secret)' : '';
  return `${new Date(a.time).toLocaleTimeString()} ${a.event}: ${outcome}${hint} (${a.durationMs} ms)`;
}

async function loadDeposits() {
  const { sandbox, deposits } = await call('/dashboard/api/deposits?limit=20');
  const body = $('deposits');
  body.replaceChildren();
  for (const d of deposits) {
    const row = document.createElement('tr');
    row.dataset.depositId = d.depositId;
    cell(row, new Date(d.createdAt).toLocaleString());
    cell(row, d.depositId);
    cell(row, d.method);
    cell(row, `${d.amount} ${d.currency}`);
    cell(row, d.status, `status-${d.status}`);
    const attempts = cell(row, d.attempts.length ? '' : 'none yet');
    if (d.attempts.length) {
      const list = document.createElement('ol');
      list.reversed = true;
      for (const a of d.attempts) {
        const li = document.createElement('li');
        li.textContent = attemptText(a);
        if (a.error !== null) li.className = 'status-failed';
        list.append(li);
      }
      attempts.append(list);
    }
    const actions = cell(row, '');
    if (sandbox && d.status === 'pending') {
      for (const [action, label, done] of [['pay', 'Pay', 'Paid.'], ['expire', 'Expire', 'Expired.']]) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = `deposit-${action}`;
        button.textContent = label;
        button.addEventListener('click', () => run(async () => {
          await call(`/dashboard/api/deposits/${encodeURIComponent(d.depositId)}/${action}`, { method: 'POST' });
          notice(done, true);
          await loadDeposits();
          // The webhook goes out within moments: show its attempt.
          setTimeout(() => run(loadDeposits), 1000);
        }));
        actions.append(button);
      }
    }
    body.append(row);
  }
}

$('refresh-deposits').addEventListener('click', () => run(loadDeposits));
// ---- end of Deposits ----

function run(task) {
  task().catch((err) => notice(err.message));
}

$('login-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  run(async () => {
    const email = form.elements.email.value;
    const data = await call('/v1/auth/login', { method: 'POST', auth: false, body: { email, password: form.elements.password.value } });
    pending = { verificationToken: data.verificationToken, email };
    form.elements.password.value = '';
    $('otp-email').textContent = email;
    const link = $('mailbox-link');
    link.href = `/sandbox/mailbox?email=${encodeURIComponent(email)}`;
    link.hidden = false;
    $('otp-form').hidden = false;
    notice('Code sent.', true);
  });
});

$('otp-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  run(async () => {
    if (!pending) throw new Error('Start with your email and password.');
    const data = await call('/v1/auth/verify-login', { method: 'POST', auth: false, body: { verificationToken: pending.verificationToken, otp: form.elements.otp.value } });
    sessionStorage.setItem(TOKEN_KEY, data.accessToken);
    pending = null;
    form.reset();
    $('otp-form').hidden = true;
    notice('');
    await loadAccount();
  });
});

const secretButtons = [
  ['reveal-client-secret', '/dashboard/api/client-secret/reveal', 'client-secret', 'clientSecret', null],
  ['rotate-client-secret', '/dashboard/api/client-secret/rotate', 'client-secret', 'clientSecret', 'Rotate the client secret? Requests signed with the old one stop working at once.'],
  ['reveal-webhook-secret', '/dashboard/api/webhook-secret/reveal', 'webhook-secret', 'webhookSecret', null],
  ['rotate-webhook-secret', '/dashboard/api/webhook-secret/rotate', 'webhook-secret', 'webhookSecret', 'Rotate the webhook secret? Your receiver must use the new one.'],
];
for (const [button, path, target, field, confirmText] of secretButtons) {
  $(button).addEventListener('click', () => run(async () => {
    if (confirmText && !confirm(confirmText)) return;
    const data = await call(path, { method: 'POST' });
    $(target).textContent = data[field];
    if (confirmText) notice('Rotated.', true);
  }));
}

$('webhook-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = event.currentTarget.elements.webhookUrl.value.trim();
  run(async () => {
    await call('/dashboard/api/webhook-url', { method: 'PUT', body: { webhookUrl: value || null } });
    notice('Webhook URL saved.', true);
  });
});

$('checkout-enabled').addEventListener('change', (event) => {
  const enabled = event.currentTarget.checked;
  run(async () => {
    await call('/dashboard/api/checkout', { method: 'PUT', body: { enabled } });
    notice(enabled ? 'Checkout enabled.' : 'Checkout disabled.', true);
  });
});

$('tolerance-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const underpaymentTolerance = Number(event.currentTarget.elements.underpaymentTolerance.value);
  run(async () => {
    await call('/dashboard/api/underpayment-tolerance', { method: 'PUT', body: { underpaymentTolerance } });
    notice('Underpayment tolerance saved.', true);
  });
});

$('refresh-deliveries').addEventListener('click', () => run(loadDeliveries));
$('sign-out').addEventListener('click', signOut);

if (sessionStorage.getItem(TOKEN_KEY)) run(loadAccount);
else show(false);
