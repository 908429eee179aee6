-- Demo data of the content API, converted once from ../shared/fixtures/content-demo.json and owned
-- here (the example works without ../shared). Two sites share one page tree; site A has an English
-- and a French tree. Loaded only into an empty schema.

DO $seed$ BEGIN
IF EXISTS (SELECT FROM content.pages) THEN RETURN; END IF;

INSERT INTO content.settings (api_base_url, media_url, limit_max, i18n_enabled, search_enabled) VALUES ('http://api.lumenfield.test', '/media/', 20, true, true);

INSERT INTO content.locales (id, language_code) VALUES
  (1, 'en'),
  (2, 'fr');

INSERT INTO content.collections (id, name, restricted) VALUES
  (1, 'Root', false),
  (2, 'Press', false),
  (3, 'Trustees', true);

INSERT INTO content.page_types (type, fields) VALUES
  ('wagtailcore.Page', '[]'),
  ('home.HomePage', '[{"name": "intro", "kind": "text"}, {"name": "hero_image", "kind": "image"}]'),
  ('content.StandardPage', '[{"name": "body", "kind": "text"}, {"name": "attachment", "kind": "document"}]'),
  ('blog.BlogIndexPage', '[{"name": "intro", "kind": "text"}]'),
  ('blog.BlogPage', '[{"name": "date", "kind": "date"}, {"name": "intro", "kind": "text"}, {"name": "body", "kind": "text"}, {"name": "feed_image", "kind": "image"}, {"name": "reading_time", "kind": "integer"}]');

INSERT INTO content.pages (id, type, parent, path, depth, title, slug, locale_id, translation_key, live, private, first_published_at, expire_at, show_in_menus, seo_title, search_description, alias_of, fields) VALUES
  (1, 'wagtailcore.Page', NULL, '0001', 1, 'Root', 'root', 1, 'tk-root', true, false, NULL, NULL, false, '', '', NULL, '{}'),
  (2, 'home.HomePage', 1, '00010001', 2, 'Lumenfield Gardens', 'home', 1, 'tk-home-a', true, false, '2023-01-10T09:00:00Z', NULL, false, 'Lumenfield Gardens: glasshouses and meadows', 'Visit twelve acres of glasshouses, meadows and kitchen beds.', NULL, '{"intro": "Twelve acres of glasshouses, wildflower meadows and a working kitchen garden on the edge of town.", "hero_image": 1}'),
  (3, 'content.StandardPage', 2, '000100010001', 3, 'About the gardens', 'about', 1, 'tk-about', true, false, '2023-01-12T10:00:00Z', NULL, true, '', 'Who we are and how the gardens began.', NULL, '{"body": "Lumenfield began as a market garden in 1921 and opened to the public in 1978.", "attachment": 2}'),
  (4, 'content.StandardPage', 3, '0001000100010001', 4, 'Our history', 'history', 1, 'tk-history', true, false, '2023-01-15T11:30:00Z', NULL, false, '', '', NULL, '{"body": "From market garden to public garden: a century of growing.", "attachment": null}'),
  (5, 'content.StandardPage', 3, '0001000100010002', 4, 'Volunteering', 'volunteering', 1, 'tk-volunteering', true, false, '2023-03-02T08:45:00Z', NULL, true, '', 'Help us in the kitchen garden.', NULL, '{"body": "Join our Tuesday and Saturday volunteer teams in the kitchen garden.", "attachment": 6}'),
  (18, 'blog.BlogPage', 3, '0001000100010003', 4, 'Pruning roses in late winter', 'rose-pruning-guide', 1, 'tk-rose-guide', true, false, '2024-02-20T09:00:00Z', NULL, false, 'How to prune roses in late winter', 'A step by step guide to winter rose pruning.', 7, '{"date": "2024-02-12", "intro": "Late winter is the moment to prune bush and climbing roses.", "body": "Use clean, sharp secateurs and cut just above an outward facing bud. Remove dead wood first.", "feed_image": 2, "reading_time": 6}'),
  (6, 'blog.BlogIndexPage', 2, '000100010002', 3, 'Garden journal', 'journal', 1, 'tk-journal', true, false, '2023-02-01T09:00:00Z', NULL, true, '', 'Notes from the gardeners.', NULL, '{"intro": "Seasonal notes, how to guides and news from the gardening team."}'),
  (7, 'blog.BlogPage', 6, '0001000100020001', 4, 'Pruning roses in late winter', 'pruning-roses', 1, 'tk-roses', true, false, '2024-02-12T08:30:00Z', NULL, false, 'How to prune roses in late winter', 'A step by step guide to winter rose pruning.', NULL, '{"date": "2024-02-12", "intro": "Late winter is the moment to prune bush and climbing roses.", "body": "Use clean, sharp secateurs and cut just above an outward facing bud. Remove dead wood first.", "feed_image": 2, "reading_time": 6}'),
  (8, 'blog.BlogPage', 6, '0001000100020002', 4, 'A year in the kitchen garden', 'kitchen-garden-year', 1, 'tk-kitchen', true, false, '2023-11-03T14:00:00Z', NULL, false, '', 'Twelve months in the walled garden.', NULL, '{"date": "2023-11-03", "intro": "Twelve months of sowing, growing and harvesting in the walled kitchen garden.", "body": "We grew forty varieties of beans this year and saved seed from the best plants.", "feed_image": 3, "reading_time": 9}'),
  (9, 'blog.BlogPage', 6, '0001000100020003', 4, 'Seed saving for beginners', 'seed-saving', 1, 'tk-seeds', true, false, '2024-03-30T07:15:00Z', NULL, false, '', '', NULL, '{"date": "2024-03-30", "intro": "Saving seed is easy once you know which plants come true.", "body": "Start with tomatoes, beans and peas. Dry the seed well and store it somewhere cool.", "feed_image": 4, "reading_time": 4}'),
  (10, 'blog.BlogPage', 6, '0001000100020004', 4, 'Glasshouse orchids in bloom', 'orchids-in-bloom', 1, 'tk-orchids', false, false, NULL, NULL, false, '', '', NULL, '{"date": "2024-06-01", "intro": "Draft about the orchid collection.", "body": "The orchid collection flowers in June.", "feed_image": 1, "reading_time": 3}'),
  (11, 'blog.BlogPage', 6, '0001000100020005', 4, 'iPhone photography in the glasshouse', 'glasshouse-photography', 1, 'tk-photo', true, false, '2024-01-20T16:00:00Z', NULL, false, '', '', NULL, '{"date": "2024-01-20", "intro": "Tips for taking sharp photographs of plants under glass.", "body": "Clean the lens, turn off the flash and wait for an overcast day.", "feed_image": null, "reading_time": 3}'),
  (12, 'blog.BlogPage', 6, '0001000100020006', 4, 'Spring plant sale recap', 'plant-sale-recap', 1, 'tk-sale', false, false, '2023-05-20T12:00:00Z', NULL, false, '', '', NULL, '{"date": "2023-05-20", "intro": "Thank you to everyone who came to the plant sale.", "body": "We raised funds for the new glasshouse roof.", "feed_image": 4, "reading_time": 2}'),
  (13, 'content.StandardPage', 2, '000100010003', 3, 'Visit us', 'visit', 1, 'tk-visit', true, false, '2023-01-11T09:00:00Z', NULL, true, '', 'Opening times, tickets and directions.', NULL, '{"body": "The gardens are open every day except Christmas Day.", "attachment": 1}'),
  (14, 'content.StandardPage', 13, '0001000100030001', 4, 'Opening hours', 'opening-hours', 1, 'tk-hours', true, false, '2023-01-11T09:30:00Z', '2030-12-31T23:59:59Z', false, '', '', NULL, '{"body": "Summer: 9am to 7pm. Winter: 10am to 4pm.", "attachment": null}'),
  (15, 'content.StandardPage', 13, '0001000100030002', 4, 'Getting here', 'getting-here', 1, 'tk-getting-here', true, false, '2023-01-11T10:00:00Z', NULL, false, '', '', NULL, '{"body": "Take the number 12 tram to Meadow Lane, then walk five minutes.", "attachment": 1}'),
  (16, 'content.StandardPage', 2, '000100010004', 3, 'Members area', 'members', 1, 'tk-members', true, true, '2023-04-01T09:00:00Z', NULL, false, '', '', NULL, '{"body": "Welcome, members. This area is password protected.", "attachment": null}'),
  (17, 'content.StandardPage', 16, '0001000100040001', 4, 'Members newsletter', 'newsletter', 1, 'tk-newsletter', true, false, '2023-04-02T09:00:00Z', NULL, false, '', '', NULL, '{"body": "Members newsletter: the secret rose garden opens in May.", "attachment": null}'),
  (20, 'home.HomePage', 1, '00010002', 2, 'Jardins de Lumenfield', 'accueil', 2, 'tk-home-a', true, false, '2023-06-01T09:00:00Z', NULL, false, '', 'Visitez douze hectares de serres et de prairies.', NULL, '{"intro": "Douze hectares de serres, de prairies fleuries et un potager.", "hero_image": 1}'),
  (21, 'content.StandardPage', 20, '000100020001', 3, 'À propos des jardins', 'a-propos', 2, 'tk-about', true, false, '2023-06-02T09:00:00Z', NULL, true, '', '', NULL, '{"body": "Lumenfield était un jardin maraîcher en 1921.", "attachment": 2}'),
  (22, 'blog.BlogIndexPage', 20, '000100020002', 3, 'Journal du jardin', 'journal', 2, 'tk-journal', true, false, '2023-06-03T09:00:00Z', NULL, true, '', '', NULL, '{"intro": "Notes de saison et conseils de l''équipe."}'),
  (23, 'blog.BlogPage', 22, '0001000200020001', 4, 'Tailler les rosiers en fin d''hiver', 'tailler-les-rosiers', 2, 'tk-roses', true, false, '2024-02-14T08:30:00Z', NULL, false, '', '', NULL, '{"date": "2024-02-12", "intro": "La fin de l''hiver est le bon moment pour tailler les rosiers.", "body": "Utilisez un sécateur propre et coupez au dessus d''un bourgeon.", "feed_image": 2, "reading_time": 6}'),
  (24, 'blog.BlogPage', 22, '0001000200020002', 4, 'Économiser les graines', 'economiser-les-graines', 2, 'tk-seeds', false, false, NULL, NULL, false, '', '', NULL, '{"date": "2024-03-30", "intro": "Brouillon.", "body": "Brouillon.", "feed_image": 4, "reading_time": 4}'),
  (40, 'home.HomePage', 1, '00010003', 2, 'Harbourline Journal', 'harbourline', 1, 'tk-home-b', true, false, '2023-08-01T07:00:00Z', NULL, false, '', 'Stories from the estuary and the harbour.', NULL, '{"intro": "Long reads about ferries, lighthouses and the people of the harbour.", "hero_image": 5}'),
  (41, 'blog.BlogIndexPage', 40, '000100030001', 3, 'Dispatches', 'dispatches', 1, 'tk-dispatches', true, false, '2023-08-01T08:00:00Z', NULL, true, '', '', NULL, '{"intro": "Reports from along the waterfront."}'),
  (42, 'blog.BlogPage', 41, '0001000300010001', 4, 'Night ferries of the estuary', 'night-ferries', 1, 'tk-ferries', true, false, '2024-04-18T21:00:00Z', NULL, false, '', '', NULL, '{"date": "2024-04-18", "intro": "The last ferry leaves the harbour at midnight.", "body": "We rode every night crossing for a week and met the crews who run them.", "feed_image": 5, "reading_time": 7}'),
  (43, 'blog.BlogPage', 41, '0001000300010002', 4, 'The lighthouse keeper''s logbook', 'lighthouse-logbook', 1, 'tk-lighthouse', true, false, '2023-09-09T10:00:00Z', NULL, false, '', '', NULL, '{"date": "2023-09-09", "intro": "A century of weather, ships and fog, written by hand.", "body": "The logbook records every ship that passed the point since 1899.", "feed_image": 6, "reading_time": 11}'),
  (44, 'blog.BlogPage', 41, '0001000300010003', 4, 'Fog, tides and the harbour bell', 'harbour-bell', 1, 'tk-bell', true, false, '2024-05-22T06:30:00Z', NULL, false, '', '', NULL, '{"date": "2024-05-22", "intro": "Why the harbour bell still rings in fog.", "body": "The bell is rung by the tide itself, through a float and a chain.", "feed_image": null, "reading_time": 5}'),
  (45, 'blog.BlogPage', 41, '0001000300010004', 4, 'Harbour festival programme', 'festival-programme', 1, 'tk-festival', false, false, NULL, NULL, false, '', '', NULL, '{"date": "2024-07-06", "intro": "Draft programme.", "body": "Lantern parade and rowing races.", "feed_image": 7, "reading_time": 2}'),
  (46, 'content.StandardPage', 40, '000100030002', 3, 'About Harbourline', 'about', 1, 'tk-about-b', true, false, '2023-08-02T09:00:00Z', NULL, true, '', '', NULL, '{"body": "Harbourline is an independent journal about the estuary.", "attachment": null}'),
  (47, 'content.StandardPage', 40, '000100030003', 3, 'Contact', 'contact', 1, 'tk-contact-b', true, false, '2023-08-02T09:30:00Z', NULL, true, '', '', NULL, '{"body": "Write to the editors at the harbour office.", "attachment": 4}');

INSERT INTO content.sites (id, hostname, port, site_name, root_page, is_default_site) VALUES
  (1, 'www.lumenfield.test', 80, 'Lumenfield Gardens', 2, true),
  (2, 'journal.harbourline.test', 80, 'Harbourline Journal', 40, false);

INSERT INTO content.images (id, title, width, height, file, collection, tags) VALUES
  (1, 'Glasshouse at dawn', 1600, 1067, 'original_images/glasshouse-at-dawn.jpg', 1, ARRAY['glasshouse', 'morning']::text[]),
  (2, 'Rose pruning shears', 1200, 800, 'original_images/rose-pruning-shears.jpg', 1, ARRAY['roses', 'tools']::text[]),
  (3, 'Kitchen garden beds', 2048, 1365, 'original_images/kitchen-garden-beds.jpg', 1, ARRAY['kitchen garden', 'vegetables']::text[]),
  (4, 'seed packets on a bench', 1024, 768, 'original_images/seed-packets.jpg', 1, ARRAY['seeds']::text[]),
  (5, 'Night ferry lights', 1920, 1080, 'original_images/night-ferry-lights.jpg', 2, ARRAY['ferries', 'harbour', 'night']::text[]),
  (6, 'Lighthouse logbook page', 900, 1200, 'original_images/lighthouse-logbook.jpg', 2, ARRAY['harbour', 'lighthouse']::text[]),
  (7, 'Harbour bell in fog', 1500, 1000, 'original_images/harbour-bell-fog.jpg', 1, ARRAY[]::text[]),
  (8, 'Board seating plan', 800, 600, 'original_images/board-seating-plan.png', 3, ARRAY['internal']::text[]),
  (9, 'Meadow in June', 1600, 1067, 'original_images/meadow-in-june.jpg', 1, ARRAY['meadow', 'summer']::text[]);

INSERT INTO content.documents (id, title, file, collection, tags) VALUES
  (1, 'Visitor map 2024', 'visitor-map-2024.pdf', 1, ARRAY['maps', 'visiting']::text[]),
  (2, 'Annual report 2023', 'annual-report-2023.pdf', 1, ARRAY['reports']::text[]),
  (3, 'Rose care leaflet', 'rose-care-leaflet.pdf', 1, ARRAY['leaflets', 'roses']::text[]),
  (4, 'Harbour festival timetable', 'harbour-festival-timetable.pdf', 2, ARRAY['events', 'harbour']::text[]),
  (5, 'Trustee minutes March 2024', 'trustee-minutes-2024-03.pdf', 3, ARRAY['internal']::text[]),
  (6, 'Volunteer handbook', 'volunteer-handbook.pdf', 1, ARRAY['volunteering']::text[]),
  (7, 'membership form', 'membership-form.docx', 1, ARRAY['forms']::text[]);

END $seed$;
