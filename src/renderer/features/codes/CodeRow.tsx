import { Table } from '@mantine/core';
import type { KeyboardEvent, ReactNode } from 'react';
import { navigate } from '../../shell/use-route';
import type { CodeKind } from '../../../shared/spec/codes';
import { codeListTarget } from './code-links';
import { requestLandingFocus } from '../../components/focus-landing';

/**
 * A table row that opens the transactions carrying its code: by click, or by Enter once focused
 * (rows are in the tab order, with the app's focus ring).
 */
export function CodeRow({ kind, code, children }: { kind: CodeKind; code: string | number; children: ReactNode }) {
  const target = codeListTarget(kind, code);
  const open = () => {
    requestLandingFocus();
    navigate(target.screen, { params: target.params });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTableRowElement>) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      open();
    }
  };
  return (
    <Table.Tr
      data-code={String(code)}
      tabIndex={0}
      className="mantine-focus-auto"
      style={{ cursor: 'pointer' }}
      title={`Show the ${target.screen === 'payins' ? 'pay-ins' : 'payouts'} with ${kind === 'reason' ? 'reason' : 'status'} ${String(code)}`}
      onClick={open}
      onKeyDown={onKeyDown}
    >
      {children}
    </Table.Tr>
  );
}
