// The team server's envelope key: 32 random bytes that seal the credentials it keeps (merchant-tokens,
// JWT private keys, second-factor secrets) with AES-256-GCM before they reach the ledger. The key
// itself never reaches the ledger: it comes from a file only its owner can read (mode 0600) or from
// an environment variable, base64. Sealed text: v1.<key id>.<iv>.<ciphertext>.<tag> (base64url),
// the account it belongs to bound in as associated data, so a sealed value moved to another
// account does not open.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

export const ENVELOPE_KEY_ENV = 'PAYDESK_SERVER_KEY';

export class EnvelopeKeyError extends Error {}

export class EnvelopeKey {
  /** The first 16 hex digits of the key's SHA-256: which key sealed a value (rotation re-seals by it). */
  readonly id: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new EnvelopeKeyError(`The envelope key must be 32 bytes (base64 of 32 random bytes); this one is ${key.length}.`);
    this.id = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  static generate(): EnvelopeKey {
    return new EnvelopeKey(randomBytes(32));
  }

  /** From a file of mode 0600 (or stricter) holding the key in base64. */
  static fromFile(file: string): EnvelopeKey {
    let mode: number;
    try {
      mode = statSync(file).mode;
    } catch (error) {
      throw new EnvelopeKeyError(`Cannot read the envelope key file ${file}: ${(error as Error).message}`);
    }
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      throw new EnvelopeKeyError(`The envelope key file ${file} can be read by others (mode ${(mode & 0o777).toString(8)}): run chmod 600 ${file}.`);
    }
    return EnvelopeKey.fromBase64(readFileSync(file, 'utf8'), `the file ${file}`);
  }

  static fromBase64(text: string, where: string): EnvelopeKey {
    const key = Buffer.from(text.trim(), 'base64');
    if (key.length !== 32) throw new EnvelopeKeyError(`The envelope key in ${where} is not base64 of 32 bytes (make one with \`npm run server -- new-key\`).`);
    return new EnvelopeKey(key);
  }

  /** Which key sealed a value (its id, written in the sealed text), or undefined for a text not sealed this way. */
  static idOf(sealed: string): string | undefined {
    const [version, keyId] = sealed.split('.');
    return version === 'v1' && keyId ? keyId : undefined;
  }

  /**
   * A key of its own for `purpose` (HKDF-SHA256), the same on every server with this envelope key,
   * that reveals nothing of it: for what the instances must key alike (the reviews' digests).
   */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `paydesk ${purpose}`, 32));
  }

  toBase64(): string {
    return this.key.toString('base64');
  }

  seal(plaintext: string, account: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(account, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', this.id, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** Opens what this key sealed for this account; throws on any other key, account or a changed byte. */
  open(sealed: string, account: string): string {
    const [version, keyId, iv, ciphertext, tag] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || ciphertext === undefined || tag === undefined) throw new EnvelopeKeyError('A sealed credential is not in a form this Paydesk knows.');
    if (keyId !== this.id) throw new EnvelopeKeyError(`A credential was sealed under another envelope key (${keyId}); this server has key ${this.id}: rotate with \`npm run server -- rotate-key\`.`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(account, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** The key a server runs with: --key-file, else the environment variable. */
export function loadEnvelopeKey(file: string | undefined, env: NodeJS.ProcessEnv = process.env): EnvelopeKey {
  if (file) return EnvelopeKey.fromFile(file);
  const fromEnv = env[ENVELOPE_KEY_ENV];
  if (fromEnv) return EnvelopeKey.fromBase64(fromEnv, `$${ENVELOPE_KEY_ENV}`);
  throw new EnvelopeKeyError(`No envelope key: give --key-file <file> (mode 0600, base64 of 32 bytes) or set $${ENVELOPE_KEY_ENV}. Make one with \`npm run server -- new-key --key-file <file>\`.`);
}
