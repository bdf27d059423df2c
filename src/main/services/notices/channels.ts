// The channels that leave the app (docs/notifications.md): e-mail over SMTP
// (nodemailer: STARTTLS, authentication) and a chat webhook (an incoming-webhook URL that takes
// `{ "text": … }`, as Slack, Mattermost and Teams do). Each sends one message to one address and
// throws what went wrong; the sender retries, digests and records the channel's last error.
import nodemailer from 'nodemailer';
import { maskPansIn } from '../../../shared/redact';

export type NoticeChannelName = 'email' | 'chat';

export interface OutgoingMessage {
  subject: string;
  text: string;
  /** Stable per delivery (or digest): a receiver that dedupes by it shows a re-sent message once. */
  id: string;
}

export interface NoticeChannel {
  send(address: string, message: OutgoingMessage): Promise<void>;
  close?(): void;
}

/** How the server reaches its SMTP server: a URL (smtp://user:pass@host:587, smtps://… for implicit TLS) or its parts. */
export interface SmtpOptions {
  host: string;
  port: number;
  /** Implicit TLS (port 465); otherwise STARTTLS when the server offers it. */
  secure?: boolean;
  /** Refuse to send unless STARTTLS succeeds. */
  requireTLS?: boolean;
  auth?: { user: string; pass: string };
  from: string;
  /** Certificates the test's SMTP server is signed with; never turned off in production. */
  tls?: { ca?: string; rejectUnauthorized?: boolean };
  timeoutMs?: number;
}

export function emailChannel(options: SmtpOptions): NoticeChannel {
  const timeout = options.timeoutMs ?? 15_000;
  // Pooled: the connections (and their STARTTLS and login) are kept open for the next messages.
  const transport = nodemailer.createTransport({
    pool: true,
    host: options.host,
    port: options.port,
    secure: options.secure ?? false,
    requireTLS: options.requireTLS ?? false,
    ...(options.auth ? { auth: options.auth } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  return {
    async send(address, message) {
      await transport.sendMail({ from: options.from, to: address, subject: message.subject, text: message.text, messageId: `<${message.id}@paydesk>` });
    },
    close: () => transport.close(),
  };
}

/** The webhook's answer when it refused: its status and the start of its body (never the URL: it is a secret). */
export function chatChannel(options: { timeoutMs?: number; fetch?: typeof fetch } = {}): NoticeChannel {
  const send = options.fetch ?? fetch;
  return {
    async send(address, message) {
      const response = await send(address, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: `*${message.subject}*\n${message.text}` }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
        redirect: 'error',
      });
      if (!response.ok) throw new Error(`the chat webhook answered ${response.status}: ${maskPansIn((await response.text()).slice(0, 200))}`);
    },
  };
}
