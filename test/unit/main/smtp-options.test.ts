// The team server's SMTP server from --smtp-url (or $PAYDESK_SMTP_URL): smtp:// uses
// STARTTLS on 587 by default, smtps:// TLS from the start on 465; its user and password (URL-encoded)
// become the authentication; anything else is refused with the flag named.
import { describe, expect, it } from 'vitest';
import { parseServerOptions, ServerOptionsError, smtpOptions } from '../../../src/main/server/options';

describe('--smtp-url', () => {
  it('reads smtp:// and smtps:// with their authentication, ports and sender', () => {
    expect(smtpOptions('smtp://paydesk:p%40ss@mail.example.com', undefined, true)).toEqual({ host: 'mail.example.com', port: 587, secure: false, requireTLS: true, auth: { user: 'paydesk', pass: 'p@ss' }, from: 'Paydesk <paydesk@mail.example.com>' });
    expect(smtpOptions('smtps://mail.example.com:2465', 'ops@example.com', false)).toEqual({ host: 'mail.example.com', port: 2465, secure: true, requireTLS: false, from: 'ops@example.com' });
    expect(smtpOptions(undefined, undefined, false)).toBeUndefined();
  });

  it('takes $PAYDESK_SMTP_URL, and refuses what is not an SMTP address', () => {
    const options = parseServerOptions(['--database', 'postgres://u@127.0.0.1:5432/d'], { PAYDESK_SMTP_URL: 'smtp://127.0.0.1:2525' });
    expect(options.smtp).toMatchObject({ host: '127.0.0.1', port: 2525 });
    expect(() => smtpOptions('https://mail.example.com', undefined, false)).toThrow(ServerOptionsError);
    expect(() => smtpOptions('not a url', undefined, false)).toThrow(/--smtp-url/);
  });
});
