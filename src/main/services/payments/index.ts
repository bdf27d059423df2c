// The payments domain: pay-ins, tokenization and token charges, payouts, status reads,
// create-call attempts and the merchant-JWT tools, built on one shared context.
import { AttemptService } from './attempt-service';
import { PaymentsContext, type PaymentsDeps } from './context';
import { JwtTools } from './jwt-tools';
import { PayinService } from './payin-service';
import { PayoutService } from './payout-service';
import { Submitter } from './submitter';
import { TokenService } from './token-service';
import { UnknownSettler } from './unknown-settler';

export type { PaymentsDeps } from './context';
export { publishPush, publishTransactionChanged, type TransactionChange } from './pushes';

export interface PaymentServices {
  payins: PayinService;
  tokens: TokenService;
  payouts: PayoutService;
  attempts: AttemptService;
  jwt: JwtTools;
  /** Settles unknown attempts where no person is needed (start-up, sweep, attempts:settle-unknown). */
  settler: UnknownSettler;
}

export function createPaymentServices(deps: PaymentsDeps): PaymentServices {
  const ctx = new PaymentsContext(deps);
  const submitter = new Submitter(ctx);
  const payins = new PayinService(ctx, submitter);
  const tokens = new TokenService(ctx, submitter, payins);
  const attempts = new AttemptService(ctx, submitter, tokens);
  return {
    payins,
    tokens,
    payouts: new PayoutService(ctx, submitter),
    attempts,
    jwt: new JwtTools(ctx),
    settler: new UnknownSettler({ repos: deps.repos, attempts, referenceReads: deps.referenceReads, now: () => new Date(deps.clock.now()), log: deps.log }),
  };
}
