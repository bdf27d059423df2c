// A list's page cursor that names no position of the list (an edited link, another list's cursor,
// garbage): the caller's mistake, never the ledger's. The ledger's page reader throws it; the
// dispatcher answers it as invalid input, whichever list it came from.
export class InvalidCursorError extends RangeError {
  constructor() {
    super('invalid page cursor');
    this.name = 'InvalidCursorError';
  }
}
