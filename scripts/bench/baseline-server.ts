/**
 * The benchmark's baseline: bare express parsing the same request body and
 * answering a fixed user, with no validation, no authentication and no
 * database. What the real service costs is measured against this.
 */
import express from 'express';

const USER = {
  user: {
    user_id: '4b2d9a1e0c8f4e6a9d3b7c5e1f0a2b3c',
    username: 'alice@example.com',
    first_name: 'Alice',
    last_name: 'Liddell',
    phone: '555-010-4477',
    organization: 'Engineering',
    locked: false,
    disabled: false,
    realm: 'local',
    groups: [{ group_id: '0a1b2c3d4e5f60718293a4b5c6d7e8f9', name: 'All Users' }],
    created: '2026-11-02T09:30:00.000Z',
    password_set_date: null,
    last_session: null,
  },
};

const app = express();
app.use(express.json({ limit: 32 * 1024 }));
app.post('/api/public/update_user', (req, res) => {
  res.json({ ...USER, user: { ...USER.user, ...(req.body?.target_user ?? {}) } });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('baseline listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
