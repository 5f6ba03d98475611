// What became of each cavsim frame at each intended receiver: delivered, or lost with the reason
// ns-3 gives (src/channel/frames.ts names the reasons). Shared by the lock-step program, which
// reports both, and the real-time one, which reports losses (the receiving vehicle logs arrivals).
// One channel per program, so the bookkeeping is one process-wide instance.
#pragma once

#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>

namespace cavsim
{

struct TrackedFrame
{
    int64_t number = 0; // the lock-step client's frame number
    std::string label;  // the cavsim datagram id (real-time)
    uint32_t from = 0;
    std::set<uint32_t> open; // intended receivers whose fate is not known yet
    bool broadcast = false;
};

// reason is null for a delivery.
using OutcomeSink = std::function<void(const TrackedFrame& frame, uint32_t node, const std::string* reason, const std::string& power, const std::string& los)>;

struct FrameOutcomes
{
    OutcomeSink sink;
    // A failed attempt of a unicast is final only when the MAC does not retry (wired channels).
    bool macRetries = false;
    std::map<uint64_t, TrackedFrame> frames; // by packet uid
    std::map<std::pair<uint64_t, uint32_t>, double> rxPower;            // (uid, receiver) -> dBm
    std::map<std::pair<uint64_t, uint32_t>, std::string> lastFailure;   // a unicast attempt's failure
    std::map<std::pair<uint32_t, uint32_t>, bool> lineOfSight;          // (sender, receiver), when a map is used
    bool losKnown = false;

    void Reset()
    {
        frames.clear();
        rxPower.clear();
        lastFailure.clear();
        lineOfSight.clear();
        losKnown = false;
    }
};

inline FrameOutcomes&
Outcomes()
{
    static FrameOutcomes outcomes;
    return outcomes;
}

inline TrackedFrame*
TrackedFrameOf(uint64_t uid)
{
    auto it = Outcomes().frames.find(uid);
    return it == Outcomes().frames.end() ? nullptr : &it->second;
}

inline void
TrackFrame(uint64_t uid, TrackedFrame frame)
{
    Outcomes().frames[uid] = std::move(frame);
}

inline std::string
PowerText(uint64_t uid, uint32_t node)
{
    auto it = Outcomes().rxPower.find({uid, node});
    if (it == Outcomes().rxPower.end())
    {
        return "nan";
    }
    std::ostringstream s;
    s.precision(6);
    s << std::fixed << it->second;
    return s.str();
}

inline std::string
LineOfSightText(uint32_t from, uint32_t to)
{
    if (!Outcomes().losKnown)
    {
        return "-";
    }
    auto it = Outcomes().lineOfSight.find({from, to});
    return it == Outcomes().lineOfSight.end() ? "-" : (it->second ? "1" : "0");
}

// Reports the outcome at `node` once, and forgets the frame when every receiver has one.
inline void
Settle(uint64_t uid, uint32_t node, const std::string* reason)
{
    FrameOutcomes& o = Outcomes();
    TrackedFrame* f = TrackedFrameOf(uid);
    if (f == nullptr || f->open.erase(node) == 0)
    {
        return;
    }
    o.sink(*f, node, reason, PowerText(uid, node), LineOfSightText(f->from, node));
    o.rxPower.erase({uid, node});
    o.lastFailure.erase({uid, node});
    if (f->open.empty())
    {
        o.frames.erase(uid);
    }
}

inline void
ReportDelivered(uint64_t uid, uint32_t node)
{
    Settle(uid, node, nullptr);
}

inline void
ReportLost(uint64_t uid, uint32_t node, const std::string& reason)
{
    Settle(uid, node, &reason);
}

// A failure at a receiver: final for a broadcast and where the MAC does not retry; otherwise
// remembered, and reported if the sender gives up.
inline void
ReceptionFailed(uint64_t uid, uint32_t node, const std::string& reason)
{
    TrackedFrame* f = TrackedFrameOf(uid);
    if (f == nullptr || f->open.count(node) == 0)
    {
        return;
    }
    if (f->broadcast || !Outcomes().macRetries)
    {
        ReportLost(uid, node, reason);
    }
    else
    {
        Outcomes().lastFailure[{uid, node}] = reason;
    }
}

// The sender could not queue the frame, or gave up on it: lost at every receiver still open.
inline void
LostAtEveryReceiver(uint64_t uid, const std::string& reason)
{
    TrackedFrame* f = TrackedFrameOf(uid);
    if (f == nullptr)
    {
        return;
    }
    for (uint32_t node : std::set<uint32_t>(f->open))
    {
        ReportLost(uid, node, reason);
    }
}

inline void
WiredChannelLoss(uint32_t node, ns3::Ptr<const ns3::Packet> packet)
{
    ReceptionFailed(packet->GetUid(), node, "channel-loss");
}

inline void
WiredQueueDrop(ns3::Ptr<const ns3::Packet> packet)
{
    LostAtEveryReceiver(packet->GetUid(), "queue-drop");
}

// Loss traces of the csma and latency devices: a receiver's error model, a full queue, and (csma)
// a sender that gave up after its maximum number of backoffs.
inline void
ConnectWiredOutcomes(const ns3::NetDeviceContainer& devices, bool csma)
{
    Outcomes().macRetries = false;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        devices.Get(i)->TraceConnectWithoutContext("PhyRxDrop", ns3::MakeBoundCallback(&WiredChannelLoss, i));
        if (csma)
        {
            devices.Get(i)->TraceConnectWithoutContext("MacTxDrop", ns3::MakeCallback(&WiredQueueDrop));
            devices.Get(i)->TraceConnectWithoutContext("PhyTxDrop", ns3::MakeCallback(&WiredQueueDrop));
        }
    }
}

} // namespace cavsim
