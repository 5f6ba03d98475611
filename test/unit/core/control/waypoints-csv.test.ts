import { describe, expect, it } from 'vitest';
import { parseNumericCsv } from '../../../../src/core/control/waypoints.js';

const COLUMNS = ['x', 'y', 'speed'] as const;

describe('parseNumericCsv', () => {
  it('reads the wanted columns by header name, past comments, blank lines and CRLF', () => {
    expect(parseNumericCsv('# a path\r\nSpeed,X,Y,note\r\n\r\n3,1,2,ok\r\n"6",4,5,\n', COLUMNS)).toEqual({
      rows: [
        { x: 1, y: 2, speed: 3 },
        { x: 4, y: 5, speed: 6 },
      ],
      errors: [],
    });
  });

  it.each([
    ['', 'the file is empty; it needs a header line such as x,y,speed'],
    ['# only a comment\n\n', 'the file is empty; it needs a header line such as x,y,speed'],
    ['x,y,speed\n', 'the file has a header but no rows'],
    ['# a path\nx,y\n1,2\n', 'line 2: header "x,y" lacks column(s) speed; expected x,y,speed'],
  ])('says what is wrong with %j', (text, error) => {
    expect(parseNumericCsv(text, COLUMNS).errors).toEqual([error]);
  });

  it('names the line and column of each cell that is not a number', () => {
    expect(parseNumericCsv('x,y,speed\n# note\n1,oops,3\n\n4,5\n', COLUMNS).errors).toEqual([
      'line 3: column y is "oops", not a number',
      'line 5: column speed is "", not a number',
    ]);
  });

  it('names the line of a quote left open', () => {
    expect(parseNumericCsv('x,y,speed\n1,2,"3\n', COLUMNS).errors).toEqual([expect.stringMatching(/^line 2: not valid CSV/)]);
  });
});
