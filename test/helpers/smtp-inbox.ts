// A real SMTP server on loopback (smtp-server) for the notice tests: STARTTLS with a test
// certificate, authentication, and every mail it accepted kept for the test to read. `hold()`
// makes it take the next messages' data without answering (a server slow to accept), so a test can
// kill the sender while a message is in flight; such a message was never accepted and is not kept.
// Mail to an address at refused.example is refused (a failing channel).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { TestCertificate } from './test-tls';

export interface Mail {
  to: string;
  raw: string;
  messageId: string | undefined;
  subject: string | undefined;
}

export interface SmtpInbox {
  /** smtp://user:password@127.0.0.1:port, for --smtp-url. */
  url: string;
  /** Every mail accepted, in order. */
  mails: Mail[];
  to(address: string): Mail[];
  /** From now on, messages are read but not answered, until release(); resolves when one arrives. */
  hold(): Promise<void>;
  /** Answers nothing held (their senders are gone) and accepts what comes next. */
  release(): void;
  close(): Promise<void>;
}

const header = (raw: string, name: string) => new RegExp(`^${name}: *(.*)$`, 'mi').exec(raw)?.[1]?.trim();

export async function startSmtpInbox(cert: TestCertificate): Promise<SmtpInbox> {
  const mails: Mail[] = [];
  let holding: { arrived: () => void } | null = null;
  const server = new SMTPServer({
    key: cert.key,
    cert: cert.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth: (auth, _session, callback) => (auth.username === 'paydesk' && auth.password === 'mail-secret' ? callback(null, { user: auth.username }) : callback(new Error('bad credentials'))),
    // A mailbox that does not exist: refused, as a real server refuses one.
    onRcptTo: (address, _session, callback) => (address.address.endsWith('@refused.example') ? callback(new Error('550 no such mailbox')) : callback()),
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (holding) {
          // Read, never answered: the sender waits for an acceptance that does not come.
          holding.arrived();
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        for (const to of session.envelope.rcptTo) mails.push({ to: to.address, raw, messageId: header(raw, 'Message-ID'), subject: header(raw, 'Subject') });
        callback();
      });
    },
    logger: false,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://paydesk:mail-secret@127.0.0.1:${port}`,
    mails,
    to: (address) => mails.filter((mail) => mail.to === address),
    hold: () => new Promise((resolve) => (holding = { arrived: () => resolve() })),
    release: () => (holding = null),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
