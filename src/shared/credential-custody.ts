// Where a profile's credentials (merchant-token, JWT private key) are kept, and how the screens say
// so: on a desk in the OS keychain, on a team server sealed in its ledger under its envelope key.
// The secret store in main names its custody (KeychainStatus.custody, through app:get-info); a desk
// signed in to a team server shows the server's, since its credentials go there. Every sentence
// about where a credential goes is written here, once per custody, so none is untrue in the other.
export type CredentialCustody = 'keychain' | 'server';

export interface CustodyWords {
  /** The Settings row that shows the store's state. */
  storeLabel: string;
  /** Beside the merchant-token field. */
  tokenField: string;
  tokenStored: string;
  keyGenerated: string;
  /** Beside the private-key field. */
  keyField: string;
  keyImported: string;
  /** What deleting a profile does to its credentials. */
  onDelete: string;
}

export const CUSTODY_WORDS: Record<CredentialCustody, CustodyWords> = {
  keychain: {
    storeLabel: 'Keychain',
    tokenField: 'Stored in the OS keychain only; never shown again.',
    tokenStored: 'merchant-token stored in the OS keychain',
    keyGenerated: 'New Ed25519 key stored in the OS keychain',
    keyField: 'Goes to the OS keychain; never stored elsewhere or shown again.',
    keyImported: 'Key imported into the OS keychain',
    onDelete: 'Its merchant-token and signing key are removed from the OS keychain too.',
  },
  server: {
    storeLabel: 'Credentials',
    tokenField: 'Sealed on the team server (AES-256-GCM under its envelope key); never shown again, never sent to a browser or desk.',
    tokenStored: 'merchant-token sealed on the team server',
    keyGenerated: 'New Ed25519 key sealed on the team server',
    keyField: 'Sealed on the team server (AES-256-GCM under its envelope key); never stored elsewhere or shown again.',
    keyImported: 'Key sealed on the team server',
    onDelete: 'Its merchant-token and signing key, sealed on the team server, are removed too.',
  },
};
