// Statement files through the contract, as the renderer sends them: upload-begin with the size,
// upload-chunk in order (base64, the chunk size main gives), then inspect and import. And the
// emulator's two files (the settlement report and the bank statement), read from its admin API.
import type { StagedSettlementLine } from '../../src/main/ledger/repositories/settlement-lines';
import type { InvokeChannel, InvokeInput, InvokeOutput } from '../../src/shared/contract';

type Call = <C extends InvokeChannel>(channel: C, input?: InvokeInput<C>) => Promise<InvokeOutput<C>>;

/** Uploads `bytes` as a file of `kind`; the upload's id. */
export async function uploadStatement(call: Call, kind: 'settlement' | 'bank', fileName: string, bytes: Uint8Array | string, profileId?: string): Promise<string> {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes);
  const { uploadId, chunkBytes } = await call('statements:upload-begin', { kind, fileName, size: data.length, ...(profileId ? { profileId } : {}) });
  for (let seq = 0, at = 0; at < data.length; seq++, at += chunkBytes) {
    await call('statements:upload-chunk', { uploadId, seq, data: data.subarray(at, at + chunkBytes).toString('base64') });
  }
  return uploadId;
}

/** Uploads, inspects and imports with the proposed (or remembered) layout; the import's answer. */
export async function importStatement(call: Call, kind: 'settlement' | 'bank', fileName: string, bytes: Uint8Array | string, source = 'Emulator'): Promise<InvokeOutput<'statements:import'>> {
  const uploadId = await uploadStatement(call, kind, fileName, bytes);
  const inspection = await call('statements:inspect', { uploadId, source });
  return call('statements:import', { uploadId, source, ...(inspection.layout ? { layout: inspection.layout } : {}) });
}

/** A text file of the emulator's admin API (the settlement report, the camt.053 statement). */
export async function emulatorFile(adminUrl: string, pathname: string): Promise<string> {
  const response = await fetch(`${adminUrl}${pathname}`);
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return response.text();
}

/** A pay-in line of settlement `settlementId` as an import stages it (no occurrence: counted at commit). */
export const stagedPayinLine = (line: number, payinId: string, settlementId: string, money: { currency: string; amount: string; fee: string; net: string }): StagedSettlementLine => ({
  line,
  baseKey: `payin|${settlementId}|${payinId}`,
  type: 'payin',
  settlementId,
  walletId: null,
  payinId,
  requestId: null,
  payoutId: null,
  merchantReference: null,
  topupId: null,
  method: null,
  ...money,
  direction: 'credit',
  occurredAt: null,
  bookingDate: null,
});
