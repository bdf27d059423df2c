// The renderer's Content-Security-Policy: only our own bundle, no inline scripts, no eval, no
// remote content. Inline styles are allowed because Mantine injects its CSS variables at runtime.
// Used by the Electron session, the web-mode server and the production index.html.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');
