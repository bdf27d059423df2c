// The hosted redirect page (redirect_url): a tester approves, declines with any code of 3.1, or
// abandons the pay-in, then is sent on to the merchant's success / pending / fail / back URL.
// Plain HTML, no script and no external resources.
import { PAYIN_STATUS_CATALOGUE, describePayinStatus } from '../../shared/spec/codes';
import type { Router } from '../http/router';
import type { Reply, Request } from '../http/types';
import { isPendingPayin, type PayinService } from '../domain/payin-service';
import type { PayinRecord, PayinRepo } from '../store/payins';

export const HOSTED_PREFIX = '/pay';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const HTML_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

function html(status: number, title: string, main: string): Reply {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>
body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1b1b1f;background:#f6f7f9}
.card{background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 1px 4px #0002}h1{font-size:1.3rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem}dt{color:#555}dd{margin:0;font-weight:600}
form{margin-top:1rem;display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}button{padding:.6rem 1rem;border-radius:8px;border:0;cursor:pointer;font-size:1rem}
.ok{background:#2b8a3e;color:#fff}.no{background:#c92a2a;color:#fff}.back{background:#dee2e6}select{padding:.5rem;font-size:1rem;max-width:100%}
.note{color:#666;font-size:.85rem}</style></head><body><main class="card">${main}</main></body></html>`;
  return { status, body, contentType: 'text/html; charset=utf-8', headers: HTML_HEADERS };
}

function summary(p: PayinRecord): string {
  const card = p.card ? `<dt>Card</dt><dd>${esc(p.card.brand)} ${esc(p.card.bin)}…${esc(p.card.last4)}</dd>` : '';
  return `<dl><dt>Amount</dt><dd>${esc(p.amount)} ${esc(p.currency)}</dd><dt>Method</dt><dd>${esc(p.payment_method)}</dd>
<dt>Reference</dt><dd>${esc(p.request_id)}</dd><dt>Pay-in</dt><dd>${esc(p.payin_id)}</dd>${card}
<dt>Status</dt><dd>${p.status_code} — ${esc(describePayinStatus(p.status_code).meaning)}</dd></dl>`;
}

function page(p: PayinRecord): Reply {
  if (!isPendingPayin(p.status_code)) return html(200, 'Payment finished', `<h1>This payment is finished</h1>${summary(p)}`);
  const options = PAYIN_STATUS_CATALOGUE.filter((c) => c.code !== 100 && c.code !== 200)
    .map((c) => `<option value="${c.code}"${c.code === 500 ? ' selected' : ''}>${c.code} — ${esc(c.meaning)}</option>`)
    .join('');
  const action = `${HOSTED_PREFIX}/${encodeURIComponent(p.payin_id)}`;
  return html(
    200,
    'Gateway emulator — payment',
    `<h1>Gateway emulator: complete the payment</h1>${summary(p)}
<form method="post" action="${esc(action)}"><input type="hidden" name="action" value="approve"><button class="ok" type="submit">Approve (200)</button></form>
<form method="post" action="${esc(action)}"><input type="hidden" name="action" value="decline"><select name="status_code" aria-label="Decline code">${options}</select><button class="no" type="submit">Decline</button></form>
<form method="post" action="${esc(action)}"><input type="hidden" name="action" value="abandon"><button class="back" type="submit">Abandon (back to the shop)</button></form>
<p class="note">Local emulator: no real payment is made. The merchant receives v2_payin_notification with the result.</p>`,
  );
}

function redirectTo(url: string): Reply {
  return { status: 303, body: '', contentType: 'text/plain; charset=utf-8', headers: { location: url } };
}

/** Where the consumer goes after acting: spec 2.1's success / pending / fail / back URLs. */
function nextUrl(p: PayinRecord, abandoned: boolean): string {
  if (abandoned) return p.urls.back_url;
  if (p.status_code === 200) return p.urls.success_url;
  return isPendingPayin(p.status_code) ? p.urls.pending_url : p.urls.fail_url;
}

export function registerHostedPage(router: Router, payins: PayinRepo, service: PayinService): void {
  const notFound = (): Reply => html(404, 'Unknown payment', '<h1>Unknown payment</h1><p>No pay-in has this address.</p>');
  router.add('GET', `${HOSTED_PREFIX}/:id`, (_req, params) => {
    const p = payins.byId(params.id as string);
    return p ? page(p) : notFound();
  });
  router.add('POST', `${HOSTED_PREFIX}/:id`, (req: Request, params) => {
    const p = payins.byId(params.id as string);
    if (!p) return notFound();
    const form = new URLSearchParams(req.body.toString('utf8'));
    const action = form.get('action');
    if (!isPendingPayin(p.status_code)) return page(p);
    let code: number;
    let reason: string | undefined;
    if (action === 'approve') code = 200;
    else if (action === 'abandon') {
      code = 305;
      reason = 'USER_ABANDONED';
    } else if (action === 'decline') {
      code = Number(form.get('status_code'));
      if (!PAYIN_STATUS_CATALOGUE.some((c) => c.code === code) || code === 100 || code === 200) return html(400, 'Bad choice', '<h1>Choose a decline code of the list</h1>');
    } else return html(400, 'Bad choice', '<h1>Unknown action</h1>');
    const r = service.complete(p.payin_id, code, reason);
    const after = r.ok ? r.record : (payins.byId(p.payin_id) as PayinRecord);
    return redirectTo(nextUrl(after, action === 'abandon'));
  });
}
