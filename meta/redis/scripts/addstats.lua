-- addstats: kind, mark, seq, n, then n times dir, space, inodes, then the
-- directories whose statistics to forget. Adds the sums to the directory
-- statistics (kind 'dir') or to the quotas' usage (kind 'quota'), then
-- forgets the statistics of the removed directories; see dirstats.go.
-- With a mark (a field name; '' for none) it changes nothing when the
-- mark's record, a field of the statistics' inodes hash, already holds
-- seq or more, and stores seq with the sums otherwise: a flush sent
-- again after its answer was lost counts once. Returns 1 when it applied
-- the call, 0 when the mark skipped it.
--
-- The sums and the fields stay strings: HINCRBY reads them as 64-bit
-- integers, which Lua's doubles are not. Seq is compared as a number,
-- exact as a flush counter stays far below 2^53.
local K_DIRSPACE, K_DIRINODES = P .. ':dirspace', P .. ':dirinodes'
local kind, mark, seq, n = ARGV[A], ARGV[A + 1], ARGV[A + 2], tonumber(ARGV[A + 3])
if mark ~= '' then
  local last = redis.call('HGET', K_DIRINODES, mark)
  if last and tonumber(last) >= tonumber(seq) then return 0 end
  redis.call('HSET', K_DIRINODES, mark, seq)
end
local space, inodes = K_DIRSPACE, K_DIRINODES
if kind == 'quota' then space, inodes = K_QUOTA .. ':space', K_QUOTA .. ':inodes' end
local first = A + 4
for i = first, first + 3 * (n - 1), 3 do
  redis.call('HINCRBY', space, ARGV[i], ARGV[i + 1])
  redis.call('HINCRBY', inodes, ARGV[i], ARGV[i + 2])
end
-- At most 1000 fields per HDEL: an unpack of all of them at once could
-- overflow Lua's stack.
for i = first + 3 * n, #ARGV, 1000 do
  local last = math.min(i + 999, #ARGV)
  redis.call('HDEL', K_DIRSPACE, unpack(ARGV, i, last))
  redis.call('HDEL', K_DIRINODES, unpack(ARGV, i, last))
end
return 1
