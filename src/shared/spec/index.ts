// The spec as data, in one place: import from 'src/shared/spec'.
export * from './codes';
export * from './methods';
export * from './field-rules';
export { CHECKS, cardBrand, isExpired, MAX_EXPIRY_YEARS_AHEAD, type CheckName, type CheckContext } from './field-checks';
export * from './schemas';
export * from './events';
export * from './form-fields';
