/**
 * A SCIM list request's query (RFC 7644, 3.4.2): the filter, parsed by
 * scim2-parse-filter, and paging and sorting as SCIM defines them (startIndex
 * from 1, less than 1 counting as 1; count at most MAX_RESULTS, less than 0
 * counting as 0).
 */
import { type Filter, parse } from 'scim2-parse-filter';
import { shortened } from '../service-errors.js';
import { invalidFilter, invalidValue } from './errors.js';

export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** The most resources a page holds, as the ServiceProviderConfig's `filter.maxResults` says. */
export const MAX_RESULTS = 200;
const DEFAULT_COUNT = 100;

export interface ListQuery<SortField> {
  filter: Filter | undefined;
  startIndex: number;
  offset: number;
  limit: number;
  sortBy: SortField;
  sortDirection: 'asc' | 'desc';
}

/** A whole number as given (the contract bounds it above; below, the callers clamp it), or the default. */
function integerOf(value: string | undefined, fallback: number): number {
  const number = value === undefined ? fallback : Number(value);
  return Number.isInteger(number) ? number : fallback;
}

/** A quoted value of a filter: a JSON string (RFC 7644, 3.4.2.2, compValue), with what follows its closing quote. */
const QUOTED = /"((?:[^"\\]|\\.)*)("?)/gs;

/**
 * What is wrong with the filter's quoted values, if anything: each is a JSON string, whose
 * only escapes are \" \\ \/ \b \f \n \r \t and \uXXXX.
 */
function quotingProblem(text: string): string | undefined {
  for (const [quoted, , closed] of text.matchAll(QUOTED)) {
    if (!closed) return `the value ${shortened(quoted)} has no closing quote`;
    try {
      JSON.parse(quoted);
    } catch {
      const escape = /\\(u(?![0-9a-fA-F]{4})|[^"\\/bfnrtu])/.exec(quoted)?.[0];
      return escape
        ? `the value ${shortened(quoted)} holds ${shortened(escape)}, which is no escape: a value is a JSON string, whose escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX`
        : `the value ${shortened(quoted)} is not a JSON string (a control character must be escaped)`;
    }
  }
  return undefined;
}

/** The filter's tree, or 400 invalidFilter saying what in the filter cannot be read. */
export function parsedFilter(text: string | undefined): Filter | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const quoting = quotingProblem(text);
  if (quoting) throw invalidFilter(`cannot read the filter: ${quoting}`);
  try {
    return parse(text);
  } catch {
    // The parser's own words name its internals, not the filter: say what the grammar is instead.
    throw invalidFilter(
      `cannot read the filter "${shortened(text)}": a filter is an attribute, an operator and a value (userName eq "ada@example.com"), ` +
        'joined by and, or and not, with parentheses and value filters (emails[type eq "work"]), as RFC 7644, 3.4.2.2 writes it',
    );
  }
}

/**
 * The list request in `query`; `sortFields` names what each SCIM attribute sorts by
 * (lower case), and `defaultSort` the order when none is asked for.
 */
export function listQuery<SortField>(
  query: Record<string, string | undefined>,
  sortFields: ReadonlyMap<string, SortField>,
  defaultSort: SortField,
): ListQuery<SortField> {
  const startIndex = Math.max(1, integerOf(query.startIndex, 1));
  const limit = Math.min(MAX_RESULTS, Math.max(0, integerOf(query.count, DEFAULT_COUNT)));
  let sortBy = defaultSort;
  if (query.sortBy !== undefined) {
    const field = sortFields.get(query.sortBy.toLowerCase());
    if (field === undefined)
      throw invalidValue(`cannot sort by "${shortened(query.sortBy)}"; sort by ${[...sortFields.keys()].join(', ')}`);
    sortBy = field;
  }
  return {
    filter: parsedFilter(query.filter),
    startIndex,
    offset: startIndex - 1,
    limit,
    sortBy,
    sortDirection: query.sortOrder === 'descending' ? 'desc' : 'asc',
  };
}

/** One page of a list (RFC 7644, 3.4.2). */
/** A page of resources as SCIM's ListResponse (RFC 7644, 3.4.2), answered 200. */
export const listAnswer = <T>(resources: T[], totalResults: number, startIndex: number) => ({
  status: 200 as const,
  body: listResponse(resources, totalResults, startIndex),
});

export const listResponse = <T>(resources: T[], totalResults: number, startIndex: number) => ({
  schemas: [LIST_RESPONSE_SCHEMA],
  totalResults,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});
