// What a person sees who opens web mode's address without its session: another browser, a
// bookmark without the token, or the address of a run before a restart (each start makes a new
// token). A short page saying where the working address is, instead of the API's JSON error.
// It names no token (it has none to give) and echoes nothing of the request.

/** A browser opening a page, as opposed to the app's own calls (POST, event stream, assets). */
export function wantsPage(method: string | undefined, accept: string | undefined): boolean {
  return method === 'GET' && /\btext\/html\b/i.test(accept ?? '');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `origin`: this server's (http://127.0.0.1:PORT), shown so the person recognises the address to look for. */
export function refusalPage(origin: string, reason: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="color-scheme" content="light dark" />
<title>Paydesk: open the address it printed</title>
<style>body{font-family:system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;line-height:1.5}code{font-size:1.05em}</style>
</head>
<body>
<main>
<h1>Open Paydesk from the address it printed</h1>
<p>${escapeHtml(reason)}</p>
<p>Paydesk in web mode answers only to the address with its session token, so that no other program or web page on this computer can use it.</p>
<ol>
<li>Find the terminal where Paydesk runs (started with <code>npm start</code>). It printed a line like <code>${escapeHtml(origin)}/?token=…</code>.</li>
<li>Open that whole address, token included, in this browser.</li>
</ol>
<p>Each start prints a new token: after Paydesk restarts, an address saved or bookmarked before no longer opens it. Take the one printed last.</p>
</main>
</body>
</html>
`;
}
