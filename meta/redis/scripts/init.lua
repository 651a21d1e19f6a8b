-- init: settings (JSON), force, root attr, space limit, inode limit.
-- Fails with FORMATTED (followed by the current settings) or FOREIGN.
local setting, force, root = ARGV[A], ARGV[A + 1] == '1', ARGV[A + 2]
local cur = redis.call('GET', P .. ':setting')
if cur and not force then return fail('FORMATTED ' .. cur) end
if not cur and redis.call('EXISTS', k_attr(1)) == 0 and redis.call('DBSIZE') > 0 then
  return fail('FOREIGN')
end
redis.call('SET', P .. ':setting', setting)
redis.call('HSET', K_QUOTA, 'space', ARGV[A + 3], 'inodes', ARGV[A + 4])
if redis.call('SETNX', k_attr(1), root) == 1 then
  redis.call('HSET', K_USAGE, 'space', 0, 'inodes', 1)
  redis.call('SET', P .. ':nextino', 1)
end
return 1
