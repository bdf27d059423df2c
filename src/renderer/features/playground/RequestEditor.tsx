import { Alert, SegmentedControl, Stack, Text, Textarea } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { FieldInputs } from './FieldInputs';
import type { FieldSpec } from './fields';
import { type FormObject, formToJson, jsonToForm, setField } from './request-json';

interface RequestEditorProps<T extends FormObject> {
  label: string;
  form: T;
  onChange: (form: T) => void;
  fields: readonly FieldSpec[];
  errors: Record<string, string>;
  /** Told when the JSON text cannot be read, so the caller can refuse to send. */
  onJsonError: (message: string | null) => void;
}

/**
 * The request as a form or as JSON; both edit the same object. Secret fields (the CVV) are never
 * written into the JSON text: they stay in their own masked inputs in either view.
 */
export function RequestEditor<T extends FormObject>({ label, form, onChange, fields, errors, onJsonError }: RequestEditorProps<T>) {
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [text, setText] = useState('');
  const [jsonError, setJsonError] = useState<string | null>(null);
  const synced = useRef<T | null>(null);
  const secrets = fields.filter((f) => f.secret);
  const secretPaths = secrets.map((f) => f.path);

  // The form changed from outside the JSON text (scenario, method, reset): show it.
  useEffect(() => {
    if (mode === 'json' && form !== synced.current) {
      synced.current = form;
      setText(formToJson(form, secretPaths));
      setJsonError(null);
      onJsonError(null);
    }
    // Only a new form object or a switch of view matters; the secret paths follow the form's fields.
  }, [form, mode]);

  const editJson = (next: string) => {
    setText(next);
    const parsed = jsonToForm(next);
    if (!parsed.ok) {
      setJsonError(parsed.message);
      onJsonError(parsed.message);
      return;
    }
    const kept = Object.fromEntries(secretPaths.map((path) => [path, form[path]]));
    const updated = { ...parsed.form, ...kept } as T;
    synced.current = updated;
    setJsonError(null);
    onJsonError(null);
    onChange(updated);
  };

  const otherErrors = Object.entries(errors).filter(([path]) => mode === 'json' || !fields.some((f) => f.path === path));
  return (
    <Stack gap="xs">
      <SegmentedControl
        aria-label={`${label} view`}
        value={mode}
        onChange={(value) => {
          synced.current = null;
          setJsonError(null);
          onJsonError(null);
          setMode(value as 'form' | 'json');
        }}
        data={[
          { value: 'form', label: 'Form' },
          { value: 'json', label: 'JSON' },
        ]}
        w={180}
      />
      {mode === 'form' ? (
        <FieldInputs fields={fields} form={form} errors={errors} onChange={(path, value) => onChange(setField(form, path, value))} />
      ) : (
        <>
          <Textarea
            label={`${label} (JSON)`}
            description="The fields Paydesk sends; merchant_id, site and notification URL are added from the profile."
            value={text}
            onChange={(event) => editJson(event.currentTarget.value)}
            error={jsonError}
            autosize
            minRows={10}
            maxRows={24}
            spellCheck={false}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
          />
          {secrets.length > 0 && <FieldInputs fields={secrets} form={form} errors={errors} onChange={(path, value) => onChange(setField(form, path, value))} />}
        </>
      )}
      {otherErrors.length > 0 && (
        <Alert color="red" title="Fix these fields" data-testid="field-errors">
          {otherErrors.map(([path, problem]) => (
            <Text key={path} size="sm">
              <b>{path}</b> {problem}
            </Text>
          ))}
        </Alert>
      )}
    </Stack>
  );
}
