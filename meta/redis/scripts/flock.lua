-- flock: ino, session, owner, type (0 read, 1 write, 2 unlock).
local ino, sid, owner, t = tonumber(ARGV[A]), ARGV[A + 1], ARGV[A + 2], tonumber(ARGV[A + 3])
local k = P .. ':f' .. d(ino)
local me = sid .. ':' .. owner
if t == 2 then
  redis.call('HDEL', k, me)
  return 1
end
local held = redis.call('HGETALL', k)
for i = 1, #held, 2 do
  if held[i] ~= me and (t == 1 or held[i + 1] == 'W') then return fail('EAGAIN') end
end
redis.call('HSET', k, me, t == 1 and 'W' or 'R')
redis.call('SADD', k_locked(sid), 'f' .. d(ino))
return 1
