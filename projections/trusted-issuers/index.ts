/**
 * The public surface of the trusted-issuers read model: what slices and other read models may use.
 */
export { trustedIssuersProjector } from './trusted-issuers.projector.ts';
export { enabledIssuers, findIssuer, listIssuers, type TrustedIssuerRecord } from './trusted-issuers.queries.ts';
