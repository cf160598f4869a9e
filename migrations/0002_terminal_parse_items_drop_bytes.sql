-- Staged upload bytes must never outlive their parse item. The parser's terminal hook NULLs
-- them on success, failure and death; this trigger makes the rule hold for every other path
-- too (a cancel or withdrawal by the API, an operator's UPDATE), so no code path can forget.
CREATE FUNCTION parse_items_drop_bytes_when_terminal() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state IN ('succeeded', 'failed', 'dead', 'cancelled') THEN
        NEW.file_bytes := NULL;
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER parse_items_drop_bytes_when_terminal
BEFORE INSERT OR UPDATE OF state, file_bytes ON parse_items
FOR EACH ROW EXECUTE FUNCTION parse_items_drop_bytes_when_terminal();
