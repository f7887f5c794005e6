/**
 * The dashboard's login: sessions kept in memory, the session cookie, CSRF tokens, the admin password's
 * scrypt hash, the failed-login throttle, the guard every admin route shares and the `/api/auth` routes.
 */
export { LoginSessions, csrfMatches, DEFAULT_SESSION_TTL_MS, type LoginSession } from './login-sessions';
export { LoginThrottle } from './throttle';
export { requireAdmin, loginOf, CSRF_HEADER, type AdminAuthOptions } from './guard';
export { loginRoutes, type LoginRoutesOptions } from './routes';
export { SESSION_COOKIE, readCookie, sessionCookie, clearedSessionCookie } from './cookies';
export { hashPassword, verifyPassword, readPasswordHash, writePasswordHash, passwordFile, MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, ADMIN_PASSWORD_FILE } from './password';
