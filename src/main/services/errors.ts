import type { ContractErrorBody, ContractErrorCode } from '../../shared/contract';

/** An expected failure whose message is safe and useful to show the user as is. */
export class ServiceError extends Error {
  constructor(
    readonly code: ContractErrorCode,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(clipMessage(message));
    this.name = 'ServiceError';
  }

  toBody(): ContractErrorBody {
    return this.fields ? { code: this.code, message: this.message, fields: this.fields } : { code: this.code, message: this.message };
  }
}

/** Messages quote what was asked for (an id, a name); a hostile or mistaken input may be huge. */
export const MAX_MESSAGE_LENGTH = 500;

function clipMessage(message: string): string {
  return message.length <= MAX_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}
