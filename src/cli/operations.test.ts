// The table `acquiro sign` and `call` read is the catalogue's, without loading the routes.
import { describe, expect, it } from 'vitest';
import { ANSWER_LISTS as CATALOGUE_ANSWER_LISTS, CATALOGUE, REQUEST_LISTS as CATALOGUE_REQUEST_LISTS } from '../http/catalogue.ts';
import { ANSWER_LISTS, OPERATIONS, REQUEST_LISTS } from './operations.ts';

describe("the CLI's table of operations", () => {
  it('names every operation of the catalogue, in its order, with its list fields and answer format', () => {
    const described = (entries: readonly { path: string; lists: ReadonlySet<string>; format: string }[]) =>
      entries.map(({ path, lists, format }) => ({ path, lists: [...lists].sort(), format }));
    expect(described(OPERATIONS)).toEqual(described(CATALOGUE.map((entry) => ({ path: entry.path, ...entry.operation }))));
  });

  it('reads the same list fields in requests and answers', () => {
    expect([...REQUEST_LISTS].sort()).toEqual([...CATALOGUE_REQUEST_LISTS].sort());
    expect([...ANSWER_LISTS].sort()).toEqual([...CATALOGUE_ANSWER_LISTS].sort());
  });
});
