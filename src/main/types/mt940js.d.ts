// mt940js ships no types: the part of its API Paydesk uses (services/statements/mt940.ts), as its
// README and lib/parser.js describe it. Amounts it parses are floats rounded to cents, so Paydesk
// reads each statement line's amount again from the tag's own text (`tags`, kept with withTags).
declare module 'mt940js' {
  export interface Mt940Tag {
    /** 20, 25, 28, 60, 61, 62, 86, … ('MB' for a message block). */
    id: number | string;
    /** The tag's text after its `:61:` marker. */
    data: string;
    /** The tag's pattern; exec it on `data` for the raw fields. */
    re: RegExp;
  }

  export interface Mt940Transaction {
    date: Date;
    entryDate: Date | '';
    amount: number;
    isReversal: boolean;
    currency: string;
    details: string;
    transactionType: string;
    reference: string;
    bankReference: string;
    extraDetails: string;
    fundsCode: string;
    /** A :86: written in subfields (?20…, >20…, /TAG/…): each subfield's text by its tag; also gvc. */
    structuredDetails?: Record<string, string>;
  }

  export interface Mt940Statement {
    transactionReference: string;
    accountIdentification: string;
    currency: string;
    transactions: Mt940Transaction[];
    /** With parse(data, true): the statement's tags in file order. */
    tags?: Mt940Tag[];
  }

  export class Parser {
    constructor(options?: { no86Structure?: boolean });
    /** Throws an Error naming the tag or check that failed (a missing tag, balances that do not add up). */
    parse(data: string, withTags?: boolean): Mt940Statement[];
  }
}
