import type { FaultState } from '../notify/faults';
import type { JwtVerifier } from '../domain/jwt-verifier';
import type { MerchantAccount } from '../domain/merchant';
import type { PayinService } from '../domain/payin-service';
import type { PayoutService } from '../domain/payout-service';
import type { RateLimiter } from '../domain/rate-limiter';
import type { Clock } from '../runtime';
import type { PayinRepo } from '../store/payins';
import type { PayoutRepo } from '../store/payouts';
import type { KeyRepo } from '../store/keys';
import type { TokenRepo } from '../store/tokens';

/** Everything the endpoints need, built once by startEmulator. */
export interface ApiDeps {
  clock: Clock;
  merchant: MerchantAccount;
  faults: FaultState;
  limiter: RateLimiter;
  payins: PayinService;
  payinRepo: PayinRepo;
  payouts: PayoutService;
  payoutRepo: PayoutRepo;
  keys: KeyRepo;
  tokens: TokenRepo;
  jwt: JwtVerifier;
}
