// What an HTTP header may contain, as Node enforces it when writing (it throws otherwise). Headers
// from SQL (response.headers, RAISE SQLSTATE 'DBRST' details) are checked against these rules where
// they are read, so an unsendable header becomes an error value, never a throw while writing. Pure.

/** RFC 9110 token: the characters a header field name may have. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Characters Node refuses in a header value or reason phrase (CR, LF, NUL, other controls, > U+00FF). */
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

export const isHeaderName = (name: string): boolean => HEADER_NAME.test(name);
export const isHeaderValue = (value: string): boolean => !INVALID_HEADER_VALUE.test(value);
