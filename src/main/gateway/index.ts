// Public surface of the gateway module: what core.ts and services import.
export { GatewayClient, type CreateTransport } from './client';
export type { GatewayHttpConfig } from './http';
export { DEFAULT_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES } from './http';
export type { CallResult, CallFailure } from './result';
export { describeResult, isTransient } from './result';
export * from './endpoints';
export { AttemptRunner, storedOutcome, type AttemptOutcome, type AttemptProgress, type SendOptions, type AttemptRunnerDeps, type CreateResponse } from './attempt-runner';
export * from './attempt-store';
export { MemoryAttemptStore } from './memory-attempt-store';
export { prepareBody, requestHash, type PreparedBody } from './attempt-body';
export { DEFAULT_RETRY_POLICY, checkPolicy, backoffDelay, backoffSchedule, nextRetry, type RetryPolicy, type RetryDecision, type WaitCause } from './backoff';
export { nextStep, type NextStep } from './advice';
export { sanitizeRequest, maskPan, looksLikePan, REDACTED, type SanitizedRequest } from '../../shared/redact';
export { jsonAmount, serializeCreateBody, canonicalJson } from './serialize';
export * from './jwt-keys';
export { signMerchantJwt, merchantJwtClaims, type MerchantJwtRequest, type CardForJwt, type JwtSigningDeps } from './merchant-jwt';
export { decodeJwt, MAX_JWT_LENGTH, IAT_TOLERANCE_SECONDS, type DecodedJwt, type SignatureCheck, type VerificationKey } from './jwt-decoder';
export { systemClock, realSleep, randomIds, type Clock, type Sleep, type IdSource } from './runtime';
