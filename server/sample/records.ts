import type { components } from '../../generated/sample/types.js';

export type InformationRecord = components['schemas']['InformationRecord'];

/**
 * The fixed list of information records (docs/spec §2.3), built anew on
 * each call, as the spec has it, so that no caller can change another's.
 */
export function buildRecords(): InformationRecord[] {
  return [
    {
      FirstName: 'John',
      LastName: 'Doe',
      DOB: 'October 21',
      Residence: 'Boston',
      Email: 'john.doe@example.com',
      Owns_Cars: ['2015-Fusion', '2019-Mustang'],
    },
    {
      FirstName: 'Maria',
      LastName: 'Garcia',
      DOB: 'March 3',
      Residence: 'Seattle',
      Email: 'maria.garcia@example.com',
      Owns_Cars: ['2021-Model 3'],
    },
    {
      FirstName: 'Wei',
      LastName: 'Chen',
      DOB: 'July 14',
      Residence: 'San Francisco',
      Email: 'wei.chen@example.com',
      Owns_Cars: ['2012-Civic', '2017-Outback', '2023-Ioniq 5'],
    },
    {
      FirstName: 'Amara',
      LastName: 'Okafor',
      DOB: 'December 1',
      Residence: 'Chicago',
      Email: 'amara.okafor@example.com',
      Owns_Cars: [],
    },
  ];
}
