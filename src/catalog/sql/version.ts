// The server's version number, e.g. 180000: the only catalog fact that is not about a schema.

/** Returns one row `{ server_version_num: number }`. No parameters. */
export const SERVER_VERSION_SQL = `
SELECT current_setting('server_version_num')::integer AS server_version_num
`;
