/**
 * The SCIM contract's validation: express-openapi-validator over every
 * request under /scim/v2 (and every answer, when asked). Its operations are
 * in lib/contract/scim-operations.ts.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { openApiValidator } from '../http/contract-validation.js';
import { SCIM_BASE_PATH, SCIM_DOCUMENT } from '../../lib/contract/scim-operations.js';

export { SCIM_BASE_PATH, SCIM_OPERATIONS, type ScimOperation, type ScimOperationId } from '../../lib/contract/scim-operations.js';

/** The SCIM contract's validator: requests always, answers when asked (VALIDATE_RESPONSES). Its refusals go to scimErrorHandler. */
export function scimContractValidation({ responses }: { responses: boolean }): (RequestHandler | ErrorRequestHandler)[] {
  return openApiValidator(SCIM_DOCUMENT, { responses, ignorePaths: (path) => !path.startsWith(`${SCIM_BASE_PATH}/`) });
}
