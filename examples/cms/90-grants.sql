-- Requests run as web_anon: it may call the routes' functions (SECURITY DEFINER), the pre-request and
-- the error handler, and nothing else of schema cms (no table, no helper).
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA cms FROM PUBLIC;
GRANT EXECUTE ON FUNCTION
  cms.pre_request(),
  cms.error_message(jsonb),
  cms.session_create(text, text, text),
  cms.session_current(text),
  cms.session_delete(text),
  cms.bookmark_list(jsonb, text),
  cms.bookmark_check(text),
  cms.bookmark_create(text),
  cms.bookmark_delete(text),
  cms.activity_log_list(jsonb, text),
  cms.activity_log_search(text, text, text),
  cms.calendar_event_list(jsonb, text)
TO web_anon;

-- The SECURITY DEFINER functions run as cms_owner (10-schema.sql), not as the superuser who loads the
-- example: it reads the tables, writes only what the routes write (sessions at log-in and log-out,
-- bookmarks, the login throttle), calls the example's helpers and pgcrypto, and owns nothing else.
GRANT USAGE ON SCHEMA cms TO cms_owner;
GRANT SELECT ON ALL TABLES IN SCHEMA cms TO cms_owner;
GRANT INSERT, UPDATE ON cms.sessions TO cms_owner;
GRANT INSERT, DELETE ON cms.bookmarks TO cms_owner;
GRANT INSERT, UPDATE, DELETE ON cms.login_throttle TO cms_owner;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA cms TO cms_owner;
DO $$
DECLARE f regprocedure;
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %s TO cms_owner',
    (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pgcrypto'));
  -- Every SECURITY DEFINER function of the schema, so one added later cannot be missed here.
  FOR f IN SELECT oid::regprocedure FROM pg_proc WHERE pronamespace = 'cms'::regnamespace AND prosecdef LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO cms_owner', f);
  END LOOP;
END $$;
