/**
 * The SCIM contract's validation: express-openapi-validator over every
 * request under /scim/v2 (and every answer, when asked). Its operations are
 * in lib/contract/scim-operations.ts.
 */
import { builtOncePerProcess, openApiValidator } from '../http/contract-validation.js';
import { SCIM_DOCUMENT, SCIM_OPERATIONS } from '../../lib/contract/scim-operations.js';

export { SCIM_BASE_PATH, SCIM_OPERATIONS, type ScimOperation, type ScimOperationId } from '../../lib/contract/scim-operations.js';

/**
 * The paths the SCIM routes answer, in the contract's own spelling only: any other (a trailing
 * slash, `//`), which the validator would match to an operation, goes to SCIM's 404 unvalidated.
 */
const SCIM_PATHS = [...new Set(SCIM_OPERATIONS.map((operation) => operation.route))].map(
  (route) => new RegExp(`^${route.replace(/:\w+/g, '[^/]+')}$`),
);

/** The SCIM contract's validator: requests always, answers when asked (VALIDATE_RESPONSES). Its refusals go to scimErrorHandler. */
export const scimContractValidation = builtOncePerProcess((responses) =>
  openApiValidator(SCIM_DOCUMENT, { responses, ignorePaths: (path) => !SCIM_PATHS.some((pattern) => pattern.test(path)) }),
);
