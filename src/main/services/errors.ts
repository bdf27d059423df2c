import type { ContractErrorBody, ContractErrorCode } from '../../shared/contract';

/** An expected failure whose message is safe and useful to show the user as is. */
export class ServiceError extends Error {
  constructor(
    readonly code: ContractErrorCode,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  toBody(): ContractErrorBody {
    return this.fields ? { code: this.code, message: this.message, fields: this.fields } : { code: this.code, message: this.message };
  }
}
