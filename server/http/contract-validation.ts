/**
 * The contract as middleware: express-openapi-validator checks every request
 * against the workspace contract, and every response too when asked
 * (VALIDATE_RESPONSES, which the tests turn on). A part of the app
 * (app.ts): the service always validates requests.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { OpenApiDocument } from '../../lib/contract/document.js';
import { OPERATIONS, WORKSPACE_DOCUMENT } from '../../lib/contract/operations.js';
import { validationErrors } from './validation-errors.js';

const CONTRACT_PATHS = new Set(OPERATIONS.map((operation) => operation.path));

/**
 * express-openapi-validator over one contract, as the service runs it for each: requests
 * always, answers when asked, paths `ignorePaths` names left to other routes.
 */
export function openApiValidator(
  document: Readonly<OpenApiDocument>,
  { responses, ignorePaths }: { responses: boolean; ignorePaths: (path: string) => boolean },
): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: structuredClone(document) as unknown as OpenAPIV3.DocumentV3_1,
    // The contract is linted and its bundle checked before it ships (npm test); checking it
    // against the OpenAPI schema again took about 200 ms of every start (BENCHMARKS.md).
    validateApiSpec: false,
    validateRequests: { allowUnknownQueryParameters: false },
    validateResponses: responses,
    validateSecurity: false,
    // Neither contract takes multipart/form-data: its middleware (multer) only looked at every request.
    fileUploader: false,
    // Dates and times as they are on a calendar: 2026-02-30 and 25:00 are refused, not rolled over.
    validateFormats: true,
    ajvFormats: { mode: 'full' },
    ignorePaths,
  });
}

type Validation = (RequestHandler | ErrorRequestHandler)[];

/**
 * A contract's validation built once per process for each choice of answer validation, and
 * shared by every app the process assembles: the contract is fixed, and loading, preparing and
 * compiling it took about 200 ms of every app (a test file, the gate's target and the bench
 * each assemble several). The validator keeps nothing of one app but the path parameters it
 * installs on each (patches/).
 */
export function builtOncePerProcess(build: (responses: boolean) => Validation): (options: { responses: boolean }) => Validation {
  const built = new Map<boolean, Validation>();
  return ({ responses }) => {
    let validation = built.get(responses);
    if (!validation) built.set(responses, (validation = build(responses)));
    return validation;
  };
}

/** The validator, then the translation of its refusals into the contract's answers (validation-errors.ts). */
export const contractValidation = builtOncePerProcess((responses) => {
  // Only the contract's own spelling of a path is validated (and then routed); any other
  // spelling (`/API/…`, a trailing slash), which the validator would match, goes to the 404.
  const validator = openApiValidator(WORKSPACE_DOCUMENT, { responses, ignorePaths: (path) => !CONTRACT_PATHS.has(path) });
  return [...validator, validationErrors];
});
