// One check per field of the 2.1 table, in table order: suites/rest/fields.ts lists them by hand
// (each id written literally, so a grep from a report finds it), schemas/token.json requires them.
import { FIELD_CHECKS } from '../../suites/rest/fields';
import { TOKEN_FIELDS } from '../support/schemas';

it("the field checks are token.json's required fields, in table order, each once", () => {
  expect(FIELD_CHECKS.map(([, field]) => field)).toEqual(TOKEN_FIELDS);
  expect(TOKEN_FIELDS).toHaveLength(11);
});
