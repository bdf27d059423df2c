import { Alert, Button, Card, FileInput, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { BATCH_CHUNK_ROWS, type ApprovalView, type BatchReviewView, type BatchView, type ProfileView } from '../../../shared/contract';
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
import { guessMapping, parseCsvFile, payoutTemplateCsv, validateRows, type Mapping, type ParsedCsv, type PreviewRow } from './csv';
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

function BatchUpload({ profile }: { profile: ProfileView }) {
  const api = useApi();
  const { limits: limitsStore, batches } = useStores();
  const limits = useStore(limitsStore, (state) => state.limits);
  const [step, setStep] = useState<Step>({ name: 'upload' });
  const [csv, setCsv] = useState<ParsedCsv | null>(null);
  const [mapping, setMapping] = useState<Mapping | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [startError, setStartError] = useState<string | null>(null);
  const [uploading, setUploading] = useState<{ done: number; total: number } | null>(null);
  const validation = useRef<AbortController | null>(null);

  useEffect(() => {
    void limitsStore.getState().loadLimits();
    return () => validation.current?.abort();
  }, [limitsStore]);

  const choose = async (file: File | null) => {
    setFileError(null);
    if (!file) return;
    try {
      const parsed = await parseCsvFile(file);
      setCsv(parsed);
      setMapping(guessMapping(parsed.headers));
      setStep({ name: 'mapping' });
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
    setStep({ name: 'checking', done: 0 });
    try {
      const rows = await validateRows(csv, mapping, { environment: profile.environment, limits }, (done) => setStep({ name: 'checking', done }), controller.signal);
      setStep({ name: 'preview', rows });
    } catch (error) {
      if (!controller.signal.aborted) setFileError(errorMessage(error));
    }
  };

  const failed = (error: unknown) => {
    const fields = error instanceof ContractError ? Object.entries(error.fields).slice(0, 5).map(([f, p]) => `${f.replace(/^items\.(\d+)\./, 'line $1, ')}: ${p}`) : [];
    setStartError(`${errorMessage(error)}${fields.length ? ` (${fields.join('; ')})` : ''}`);
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

  const startReviewed = async (review: BatchReviewView, confirmed: boolean, typedAmount?: string) => {
    setStartError(null);
    setUploading({ done: review.batch.total, total: review.batch.total });
    const proof = { id: review.batch.id, reviewId: review.reviewId, confirmed: review.required ? confirmed : true };
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
   * Draft, rows in chunks, then start (a live batch: main's review first); a failed upload leaves
   * nothing behind (the draft is discarded).
   */
  const start = async (rows: PreviewRow[]) => {
    if (!csv) return;
    setStartError(null);
    setUploading({ done: 0, total: rows.length });
    let draftId: number | null = null;
    try {
      const draft = await api.invoke('batches:create', { profileId: profile.id, fileName: csv.fileName, rows: rows.length });
      draftId = draft.id;
      for (let i = 0; i < rows.length; i += BATCH_CHUNK_ROWS) {
        const chunk = rows.slice(i, i + BATCH_CHUNK_ROWS);
        await api.invoke('batches:add-items', { id: draft.id, items: chunk.map((r) => ({ line: r.line, form: r.form })) });
        setUploading({ done: Math.min(rows.length, i + chunk.length), total: rows.length });
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

  if (step.name === 'mapping' && csv && mapping) {
    return <ColumnMapping csv={csv} mapping={mapping} onChange={setMapping} onBack={() => setStep({ name: 'upload' })} onNext={() => void check()} />;
  }
  if (step.name === 'checking' && csv) {
    return (
      <Card withBorder>
        <Stack gap="xs">
          <Text>
            Checking {step.done.toLocaleString()} of {csv.rows.length.toLocaleString()} rows…
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
        onSend={(confirmed, typedAmount) => void startReviewed(step.review, confirmed, typedAmount)}
      />
    );
  }
  if (step.name === 'submitted') return <SubmittedForApproval approval={step.approval} anotherLabel="Upload another file" onAnother={() => setStep({ name: 'upload' })} />;
  if (step.name === 'preview' && csv) {
    return <BatchPreview fileName={csv.fileName} rows={step.rows} profile={profile} uploading={uploading} error={startError} onBack={() => setStep({ name: 'mapping' })} onStart={(rows) => void start(rows)} />;
  }
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Title order={4}>Upload a CSV of payouts</Title>
        <Text size="sm" c="dimmed">
          One payout per row, the first row naming the columns (method, amount, currency, country, first and last name, e-mail and the method's fields: IBAN / BIC / account holder, wallet / network, sort code / account number). Up to 10,000 rows. Card payouts are made one by one with “New payout”: card numbers are never stored, and a batch is.
        </Text>
        <FileInput label="CSV file" placeholder="Choose a .csv file" accept=".csv,text/csv" onChange={(file) => void choose(file)} clearable data-testid="batch-file" />
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
      </Stack>
    </Card>
  );
}

function downloadTemplate() {
  downloadText('payouts-template.csv', payoutTemplateCsv(), 'text/csv');
}
