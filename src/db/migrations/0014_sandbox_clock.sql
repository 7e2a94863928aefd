-- The sandbox's test clock (acquiro clock advance): how far business time runs ahead of the wall
-- clock. One row; the offset only grows, so business time never moves backwards.
CREATE TABLE sandbox_clock (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  offset_ms bigint NOT NULL DEFAULT 0 CHECK (offset_ms >= 0),
  advanced_at timestamptz
);

INSERT INTO sandbox_clock (id, offset_ms) VALUES (true, 0);
