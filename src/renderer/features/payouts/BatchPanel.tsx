import { Alert, Button, Card, FileInput, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { BATCH_CHUNK_ROWS, BATCH_MAX_ROWS, type ApprovalView, type BatchCheckView, type BatchReviewView, type BatchView, type ProfileView } from '../../../shared/contract';
import { SubmittedForApproval } from '../approvals/SubmittedForApproval';
import { ContractError } from '../../api/client';
import { downloadText } from '../../components/download';
import { navigate } from '../../shell/use-route';
import { useApi, useStores } from '../../stores/context';
import { BatchHistory } from './BatchHistory';
import { BatchPreview } from './BatchPreview';
import { BatchProgress } from './BatchProgress';
import { BatchReview } from './BatchReview';
import { ColumnMapping } from './ColumnMapping';
import { guessMapping, leftOutReason, parseCsvBytes, payoutTemplateCsv, readCsvFile, sendable, TEMPLATE_ADVICE, validateRows, withLedgerCheck, type CsvFile, type Mapping, type ParsedCsv, type PreviewRow } from './csv';
import { countOf } from '../../components/count';
import { fieldLabel } from './form-fields';
import { errorMessage } from '../../../shared/error-message';

type Step =
  | { name: 'upload' }
  | { name: 'mapping' }
  | { name: 'checking'; done: number }
  | { name: 'preview'; rows: PreviewRow[] }
  /** A live batch, stored as a draft: main's review, then the start with its proof. */
  | { name: 'review'; rows: PreviewRow[]; review: BatchReviewView }
  /** Held back by the approval policy: it waits for an approver. */
  | { name: 'submitted'; approval: ApprovalView };

/** `?tab=batch` uploads and checks a file; `?tab=batch&batch=<id>` follows one batch. */
export function BatchPanel({ profile, batchId }: { profile: ProfileView; batchId: number | null }) {
  if (batchId !== null) {
    return (
      <Stack gap="md">
        <BatchProgress key={batchId} id={batchId} />
        <BatchHistory />
      </Stack>
    );
  }
  return (
    <Stack gap="md">
      <BatchUpload profile={profile} />
      <BatchHistory />
    </Stack>
  );
}

/** The field of a problem in words ("Merchant reference", "IBAN"). */
const describeField = (field: string) => (field === 'method' ? 'Method' : field === 'duplicate' ? 'Possible duplicate' : fieldLabel(field));

function BatchUpload({ profile }: { profile: ProfileView }) {
  const api = useApi();
  const { limits: limitsStore, batches } = useStores();
  const limits = useStore(limitsStore, (state) => state.limits);
  // A checked file the person left to look at an earlier payout (a row's link) is taken back.
  const [kept] = useState(() => batches.getState().takeUpload());
  const [step, setStep] = useState<Step>(kept?.step ?? { name: 'upload' });
  const [file, setFile] = useState<CsvFile | null>(kept?.file ?? null);
  const [csv, setCsv] = useState<ParsedCsv | null>(kept?.csv ?? null);
  const [mapping, setMapping] = useState<Mapping | null>(kept?.mapping ?? null);
  const [confirmed, setConfirmed] = useState<ReadonlySet<number>>(kept?.confirmed ?? new Set());
  const [fileError, setFileError] = useState<string | null>(null);
  const [startError, setStartError] = useState<string | null>(null);
  const [uploading, setUploading] = useState<{ done: number; total: number } | null>(null);
  const validation = useRef<AbortController | null>(null);

  useEffect(() => {
    void limitsStore.getState().loadLimits();
    return () => validation.current?.abort();
  }, [limitsStore]);

  const read = (chosen: CsvFile, encoding?: string) => {
    const parsed = parseCsvBytes(chosen, encoding);
    setCsv(parsed);
    // Another encoding may read the headers differently: the mapping is guessed again only then.
    setMapping((current) => (current && csv && csv.headers.join('\u0000') === parsed.headers.join('\u0000') ? current : guessMapping(parsed.headers)));
  };

  const choose = async (chosen: File | null) => {
    setFileError(null);
    if (!chosen) return;
    try {
      const bytes = await readCsvFile(chosen);
      const parsed = parseCsvBytes(bytes);
      setFile(bytes);
      setCsv(parsed);
      setMapping(guessMapping(parsed.headers));
      setConfirmed(new Set());
      setStep({ name: 'mapping' });
    } catch (error) {
      setFileError(errorMessage(error));
    }
  };

  const changeEncoding = (encoding: string) => {
    if (!file) return;
    try {
      setFileError(null);
      read(file, encoding);
    } catch (error) {
      setFileError(errorMessage(error));
    }
  };

  const check = async () => {
    if (!csv || !mapping) return;
    validation.current?.abort();
    const controller = new AbortController();
    validation.current = controller;
    setStartError(null);
    setFileError(null);
    setStep({ name: 'checking', done: 0 });
    try {
      const checked = await validateRows(csv, mapping, { environment: profile.environment, limits }, (done) => setStep({ name: 'checking', done }), controller.signal);
      // What only the ledger knows, asked of main for the rows that could be sent: earlier payouts
      // each may repeat, and references already used.
      const candidates = checked.filter((row) => Object.keys(row.problems).length === 0);
      const found: BatchCheckView['items'] = [];
      for (let i = 0; i < candidates.length; i += BATCH_CHUNK_ROWS) {
        if (controller.signal.aborted) return;
        const chunk = candidates.slice(i, i + BATCH_CHUNK_ROWS);
        found.push(...(await api.invoke('batches:check', { profileId: profile.id, items: chunk.map((r) => ({ line: r.line, form: r.form })) })).items);
      }
      setConfirmed(new Set());
      setStep({ name: 'preview', rows: withLedgerCheck(checked, found) });
    } catch (error) {
      if (!controller.signal.aborted) {
        setFileError(errorMessage(error));
        setStep({ name: 'mapping' });
      }
    }
  };

  /** Main refused the rows: each problem on its line, in words, once. */
  const failed = (error: unknown) => {
    const fields = error instanceof ContractError ? Object.entries(error.fields).filter(([field]) => /^items\.\d+\./.test(field)) : [];
    if (fields.length === 0) {
      setStartError(errorMessage(error));
      return;
    }
    const lines = fields.slice(0, 5).map(([field, problem]) => {
      const [, line, name] = /^items\.(\d+)\.(.+)$/.exec(field) ?? [];
      return `Line ${line}, ${describeField(name ?? '')}: ${problem}`;
    });
    setStartError(`${lines.join('\n')}${fields.length > 5 ? `\n…and ${countOf(fields.length - 5, 'more problem', 'more problems')}` : ''}`);
  };

  const started = (view: BatchView) => {
    batches.getState().putBatch(view);
    navigate('payouts', { params: { tab: 'batch', batch: String(view.id) } });
  };

  /** A live batch's review left: its draft is dropped (nothing of it was sent). */
  const leaveReview = async (rows: PreviewRow[], draftId: number) => {
    await api.invoke('batches:discard', { id: draftId }).catch(() => undefined);
    setStartError(null);
    setStep({ name: 'preview', rows });
  };

  const startReviewed = async (review: BatchReviewView, confirmedLive: boolean, typedAmount?: string) => {
    setStartError(null);
    setUploading({ done: review.batch.total, total: review.batch.total });
    const proof = { id: review.batch.id, reviewId: review.reviewId, confirmed: review.required ? confirmedLive : true };
    try {
      if (review.approval.step === 'approval') setStep({ name: 'submitted', approval: await api.invoke('approvals:request-batch', proof) });
      else started(await api.invoke('batches:start', { ...proof, ...(typedAmount !== undefined ? { typedAmount } : {}) }));
    } catch (error) {
      failed(error);
    } finally {
      setUploading(null);
    }
  };

  /**
   * Draft, rows in chunks (a confirmed duplicate names the earlier payouts it may repeat), the
   * rows left out with why, then start (a live batch: main's review first); a failed upload leaves
   * nothing behind (the draft is discarded).
   */
  const start = async (rows: PreviewRow[]) => {
    if (!csv) return;
    const send = rows.filter((r) => sendable(r, confirmed));
    const leftOut = rows.filter((r) => !sendable(r, confirmed));
    setStartError(null);
    setUploading({ done: 0, total: rows.length });
    let draftId: number | null = null;
    try {
      const draft = await api.invoke('batches:create', { profileId: profile.id, fileName: csv.fileName, rows: send.length, leftOut: leftOut.length });
      draftId = draft.id;
      for (let i = 0; i < send.length; i += BATCH_CHUNK_ROWS) {
        const chunk = send.slice(i, i + BATCH_CHUNK_ROWS);
        const items = chunk.map((r) => ({ line: r.line, form: r.form, ...(r.duplicates.length > 0 ? { confirmedDuplicateOf: r.duplicates.map((d) => d.id) } : {}) }));
        await api.invoke('batches:add-items', { id: draft.id, items });
        setUploading({ done: Math.min(send.length, i + chunk.length), total: rows.length });
      }
      for (let i = 0; i < leftOut.length; i += BATCH_CHUNK_ROWS) {
        const chunk = leftOut.slice(i, i + BATCH_CHUNK_ROWS);
        await api.invoke('batches:add-left-out', { id: draft.id, rows: chunk.map((r) => ({ line: r.line, reason: leftOutReason(r, describeField).slice(0, 2000) })) });
        setUploading({ done: send.length + Math.min(leftOut.length, i + chunk.length), total: rows.length });
      }
      // Main's review: shown for a live batch, and for any the approval policy holds back.
      const review = await api.invoke('batches:review', { id: draft.id });
      if (profile.environment === 'live' || review.approval.step !== 'none') {
        setStep({ name: 'review', rows, review });
        setUploading(null);
        return;
      }
      started(await api.invoke('batches:start', { id: draft.id, reviewId: review.reviewId, confirmed: true }));
    } catch (error) {
      if (draftId !== null) await api.invoke('batches:discard', { id: draftId }).catch(() => undefined);
      failed(error);
      setUploading(null);
    }
  };

  const toUpload = () => {
    setStep({ name: 'upload' });
    setFile(null);
    setCsv(null);
    setMapping(null);
  };

  if (step.name === 'mapping' && csv && mapping && file) {
    return (
      <ColumnMapping
        csv={csv}
        mapping={mapping}
        detected={file.detected}
        error={fileError}
        onEncoding={changeEncoding}
        onChange={setMapping}
        onBack={toUpload}
        onNext={() => void check()}
      />
    );
  }
  if (step.name === 'checking' && csv) {
    return (
      <Card withBorder>
        <Stack gap="xs">
          <Text>
            Checking {step.done.toLocaleString()} of {countOf(csv.rows.length, 'row', 'rows')}…
          </Text>
          <Progress value={(step.done / Math.max(1, csv.rows.length)) * 100} aria-label="Checking the rows" />
        </Stack>
      </Card>
    );
  }
  if (step.name === 'review') {
    return (
      <BatchReview
        review={step.review}
        sending={uploading !== null}
        error={startError}
        backLabel="Back to the preview"
        onBack={() => void leaveReview(step.rows, step.review.batch.id)}
        onSend={(confirmedLive, typedAmount) => void startReviewed(step.review, confirmedLive, typedAmount)}
      />
    );
  }
  if (step.name === 'submitted') return <SubmittedForApproval approval={step.approval} anotherLabel="Upload another file" onAnother={toUpload} />;
  if (step.name === 'preview' && csv) {
    return (
      <BatchPreview
        fileName={csv.fileName}
        rows={step.rows}
        confirmed={confirmed}
        onConfirm={(line, yes) =>
          setConfirmed((current) => {
            const next = new Set(current);
            if (yes) next.add(line);
            else next.delete(line);
            return next;
          })
        }
        describeField={describeField}
        onLeave={() => file && mapping && batches.getState().keepUpload({ step, file, csv, mapping, confirmed })}
        profile={profile}
        uploading={uploading}
        error={startError}
        onBack={() => setStep({ name: 'mapping' })}
        onStart={(rows) => void start(rows)}
      />
    );
  }
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Title order={4}>Upload a CSV of payouts</Title>
        <Text size="sm" c="dimmed">
          One payout per row, the first row naming the columns (method, amount, currency, merchantReference, country, first and last name, e-mail and the method's fields: IBAN / BIC / account holder, wallet / network, sort code / account number). Up to {BATCH_MAX_ROWS.toLocaleString()} rows, saved as UTF-8, UTF-16 or Windows-1252 (the encoding is found and shown before anything is checked). Card payouts are made one by one with “New payout”: card numbers are never stored, and a batch is.
        </Text>
        <FileInput label="CSV file" placeholder="Choose a .csv file" accept=".csv,text/csv" onChange={(chosen) => void choose(chosen)} clearable data-testid="batch-file" />
        {fileError && (
          <Alert color="red" title="This file cannot be used" role="alert">
            {fileError}
          </Alert>
        )}
        <Group>
          <Button variant="subtle" onClick={() => downloadTemplate()}>
            Download a template
          </Button>
        </Group>
        <Text size="sm" c="dimmed" data-testid="template-advice">
          {TEMPLATE_ADVICE}
        </Text>
      </Stack>
    </Card>
  );
}

function downloadTemplate() {
  downloadText('payouts-template.csv', payoutTemplateCsv(), 'text/csv');
}
