// What an approval is bound to: an HMAC-SHA256 of the full reviewed body (card number included)
// under a key of the team server, kept sealed in its ledger (server_secrets) like its other
// credentials, so every instance on the ledger computes the same digest and a key rotation keeps
// it. Keyed, so the hash in the ledger and the audit log does not let anyone try the few million
// card numbers a masked one leaves open.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const ACCOUNT = 'approval-digest-key';

export interface DigestKeyStore {
  get(account: string): Promise<string | null>;
  /** Stores the secret unless one is there already (two instances starting at once keep one key). */
  setIfAbsent(account: string, secret: string): Promise<void>;
}

export class ApprovalDigest {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly store: DigestKeyStore) {}

  async of(text: string): Promise<string> {
    return createHmac('sha256', await this.secret()).update(text, 'utf8').digest('hex');
  }

  async matches(text: string, digest: string): Promise<boolean> {
    const actual = Buffer.from(await this.of(text), 'hex');
    const expected = Buffer.from(digest, 'hex');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private secret(): Promise<Buffer> {
    this.key ??= (async () => {
      if ((await this.store.get(ACCOUNT)) === null) await this.store.setIfAbsent(ACCOUNT, randomBytes(32).toString('base64'));
      const stored = await this.store.get(ACCOUNT);
      if (stored === null) throw new Error('the approval digest key could not be stored');
      return Buffer.from(stored, 'base64');
    })();
    // A failed read is tried again next time.
    this.key.catch(() => (this.key = undefined));
    return this.key;
  }
}
