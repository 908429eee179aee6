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
