-- A token may carry an expiry (NULL: it never expires). An expired token is refused with 401
-- `token_expired`, like a revoked one but with its own code so its owner knows to renew it.
ALTER TABLE api_tokens ADD COLUMN expires_at timestamptz;
