import { Text } from '@mantine/core';
import type { ActionState } from './use-action';

/**
 * What a form's action was refused for, under the form, unless its fields say it beside
 * themselves: those named in `shown` (the form's fields), else any field at all.
 */
export function FormError({ action, shown, mt = 'xs' }: { action: ActionState; shown?: readonly string[]; mt?: string | number }) {
  const fields = Object.keys(action.fieldErrors);
  const besideFields = fields.length > 0 && fields.every((field) => !shown || shown.includes(field));
  const error = besideFields ? null : action.error;
  if (!error) return null;
  return (
    <Text c="red" size="sm" role="alert" mt={mt}>
      {error}
    </Text>
  );
}
