// The optional second factor: TOTP (RFC 6238, 6 digits every 30 s, SHA-1 as authenticator apps
// expect), through otpauth. A code is accepted one step either side of now, and never twice.
import { Secret, TOTP } from 'otpauth';

const PERIOD_SECONDS = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpFor(secret: string, username: string): TOTP {
  return new TOTP({ issuer: 'Paydesk', label: username, secret: Secret.fromBase32(secret), digits: 6, period: PERIOD_SECONDS, algorithm: 'SHA1' });
}

/** The otpauth:// address an authenticator app reads (as a QR code or typed). */
export function totpUri(secret: string, username: string): string {
  return totpFor(secret, username).toString();
}

/** The time step of a valid code, or null: a wrong code, or one outside a step either side of now. */
export function totpStep(secret: string, username: string, code: string, now: Date): number | null {
  const delta = totpFor(secret, username).validate({ token: code, timestamp: now.getTime(), window: 1 });
  return delta === null ? null : Math.floor(now.getTime() / 1000 / PERIOD_SECONDS) + delta;
}

/** A valid code for now (tests, and the enrolment check of a script). */
export function totpCode(secret: string, now: Date): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: PERIOD_SECONDS, algorithm: 'SHA1' }).generate({ timestamp: now.getTime() });
}
