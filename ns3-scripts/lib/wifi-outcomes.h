// Why a wifi-80211p frame did not reach a receiver, from ns-3's PHY and MAC traces (frame-outcomes.h
// does the bookkeeping). Shared by the lock-step and the real-time channel programs.
#pragma once

#include "frame-outcomes.h"
#include "map-obstacles.h"
#include "wifi-80211p.h"

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace cavsim
{

struct WifiOutcomeState
{
    const ObstacleGrid* grid = nullptr;
    double sensitivityDbm = -101;
    double minimumRssiDbm = -82;
    double noiseDbm = -97;
    // What ns-3's PHY judges a frame's payload with (YansWifiPhyHelper's TableBasedErrorRateModel), at
    // the one rate every frame is sent at.
    ns3::Ptr<ns3::ErrorRateModel> errorModel;
    ns3::WifiTxVector txVector;
    uint64_t transmittingUid = 0;
    bool transmitting = false;
    // When each node last transmitted [start, end] in ns; end -1 while it still is.
    std::vector<std::pair<int64_t, int64_t>> lastTx;
};

inline WifiOutcomeState&
WifiOutcomes()
{
    static WifiOutcomeState state;
    return state;
}

// The last link of the wifi loss chain: records what each receiver gets of the frame being put on
// the air, and whether the walls left the line of sight clear.
class PowerProbe : public ns3::PropagationLossModel
{
  private:
    double DoCalcRxPower(double txPowerDbm, ns3::Ptr<ns3::MobilityModel> a, ns3::Ptr<ns3::MobilityModel> b) const override
    {
        WifiOutcomeState& w = WifiOutcomes();
        uint32_t from = a->GetObject<ns3::Node>()->GetId();
        uint32_t to = b->GetObject<ns3::Node>()->GetId();
        if (w.transmitting)
        {
            RecordRxPower(w.transmittingUid, to, txPowerDbm);
        }
        if (w.grid != nullptr)
        {
            ns3::Vector pa = a->GetPosition();
            ns3::Vector pb = b->GetPosition();
            RecordLineOfSight(from, to, !w.grid->Between(pa.x, pa.y, pb.x, pb.y).Blocked());
        }
        return txPowerDbm;
    }

    int64_t DoAssignStreams(int64_t) override { return 0; }
};

// YANS hands a signal under the (bandwidth-normalised) sensitivity to nobody: classify it here.
inline void
WifiTxBegin(uint32_t node, ns3::Ptr<const ns3::Packet> packet, double)
{
    using namespace ns3;
    WifiOutcomeState& w = WifiOutcomes();
    w.lastTx[node] = {Simulator::Now().GetNanoSeconds(), -1};
    w.transmittingUid = packet->GetUid();
    w.transmitting = true;
    Simulator::ScheduleNow([]() { WifiOutcomes().transmitting = false; });
    uint64_t uid = packet->GetUid();
    TrackedFrame* tracked = TrackedFrameOf(uid);
    if (tracked == nullptr)
    {
        return;
    }
    tracked->airBytes = packet->GetSize();
    Simulator::ScheduleNow([uid]() {
        TrackedFrame* frame = TrackedFrameOf(uid);
        if (frame == nullptr)
        {
            return;
        }
        double floor = WifiOutcomes().sensitivityDbm + 10 * std::log10(10.0 / 20.0);
        for (uint32_t to : frame->open.Snapshot())
        {
            double power = RxPower(uid, to);
            if (!std::isnan(power) && power < floor)
            {
                ReceptionFailed(uid, to, "below-sensitivity");
            }
        }
    });
}

// Why a frame a receiver sensed was not decoded. ns-3 does not say whether other frames mattered, so
// the frame is judged again as if it had been alone on the air: its SNR from the power the probe
// recorded and the receiver's noise, its payload (MAC header to FCS) through the error model the
// PHY uses, at the frame's rate. `propagation` if it would fail alone: its preamble would not be
// detected (under MinimumRssi or the 4 dB of SNR detection needs) or it would decode with a
// probability under one half; otherwise the frames that overlapped it broke it, `collision`. The
// PHY header, sent at the most robust rate, is left out; `rx-error` when the power is not known.
inline std::string
UndecodedReason(uint64_t uid, uint32_t node)
{
    using namespace ns3;
    const WifiOutcomeState& w = WifiOutcomes();
    const TrackedFrame* f = TrackedFrameOf(uid);
    double power = f == nullptr ? std::nan("") : RxPower(*f, node);
    if (std::isnan(power) || !w.errorModel)
    {
        return "rx-error";
    }
    double snrDb = power - w.noiseDbm;
    if (power < w.minimumRssiDbm || snrDb < kPreambleSnrDb)
    {
        return "propagation";
    }
    double success = w.errorModel->GetChunkSuccessRate(w.txVector.GetMode(), w.txVector, std::pow(10, snrDb / 10), 8 * uint64_t{f->airBytes});
    return success < 0.5 ? "propagation" : "collision";
}

// A receiver whose PHY reported nothing by the end of the frame (plus propagation) never saw it:
// ns-3 drops a preamble under detection silently when the receiver starts to transmit.
const int64_t kUnheardAfterNs = 50000; // covers propagation over 15 km

inline void
SettleUnheard(uint64_t uid, int64_t start, int64_t end)
{
    TrackedFrame* f = TrackedFrameOf(uid);
    if (f == nullptr)
    {
        return;
    }
    for (uint32_t node : f->open.Snapshot())
    {
        const auto& tx = WifiOutcomes().lastTx[node];
        bool busy = tx.first >= 0 && tx.first <= end && (tx.second < 0 || tx.second >= start);
        if (!f->broadcast && !busy && Outcomes().lastFailure.count({uid, node}))
        {
            continue; // the PHY's own reason for this attempt is already recorded
        }
        ReceptionFailed(uid, node, busy ? "receiver-busy" : UndecodedReason(uid, node));
    }
}

inline void
WifiTxEnd(uint32_t node, ns3::Ptr<const ns3::Packet> packet)
{
    using namespace ns3;
    int64_t now = Simulator::Now().GetNanoSeconds();
    int64_t start = WifiOutcomes().lastTx[node].first;
    WifiOutcomes().lastTx[node].second = now;
    uint64_t uid = packet->GetUid();
    if (TrackedFrameOf(uid) != nullptr)
    {
        Simulator::Schedule(NanoSeconds(kUnheardAfterNs), &SettleUnheard, uid, start, now);
    }
}

// Receiver-busy, or empty for a frame the receiver was free for but did not decode.
inline std::string
WifiDropReason(ns3::WifiPhyRxfailureReason reason)
{
    using namespace ns3;
    switch (reason)
    {
    case RXING:
    case TXING:
    case BUSY_DECODING_PREAMBLE:
    case RECEPTION_ABORTED_BY_TX:
    case SLEEPING:
    case POWERED_OFF:
    case CHANNEL_SWITCHING:
        return "receiver-busy";
    default:
        return "";
    }
}

inline void
WifiRxDrop(uint32_t node, ns3::Ptr<const ns3::Packet> packet, ns3::WifiPhyRxfailureReason reason)
{
    uint64_t uid = packet->GetUid();
    double power = RxPower(uid, node);
    bool tooWeak = reason == ns3::PREAMBLE_DETECT_FAILURE && !std::isnan(power) && power < WifiOutcomes().minimumRssiDbm;
    std::string busy = WifiDropReason(reason);
    ReceptionFailed(uid, node, tooWeak ? "below-sensitivity" : !busy.empty() ? busy : UndecodedReason(uid, node));
}

inline void
WifiRxError(uint32_t node, ns3::Ptr<const ns3::Packet> packet, double)
{
    ReceptionFailed(packet->GetUid(), node, UndecodedReason(packet->GetUid(), node));
}

inline void
WifiMacDropped(ns3::WifiMacDropReason reason, ns3::Ptr<const ns3::WifiMpdu> mpdu)
{
    uint64_t uid = mpdu->GetPacket()->GetUid();
    TrackedFrame* f = TrackedFrameOf(uid);
    if (f == nullptr)
    {
        return;
    }
    for (uint32_t node : f->open.Snapshot())
    {
        auto last = Outcomes().lastFailure.find({uid, node});
        std::string why = reason != ns3::WIFI_MAC_DROP_REACHED_RETRY_LIMIT ? "queue-drop"
                          : last != Outcomes().lastFailure.end()          ? last->second
                                                                          : UndecodedReason(uid, node);
        ReportLost(uid, node, why);
    }
}

// Connects the loss traces of every device; the program reports deliveries itself.
inline void
ConnectWifiOutcomes(const ns3::NetDeviceContainer& devices, const ObstacleGrid* grid, const WifiSettings& s)
{
    using namespace ns3;
    WifiOutcomeState& w = WifiOutcomes();
    w = WifiOutcomeState{};
    w.grid = grid;
    w.minimumRssiDbm = s.minimumRssiDbm;
    w.noiseDbm = NoiseDbm(s);
    w.errorModel = CreateObject<TableBasedErrorRateModel>();
    w.txVector.SetMode(WifiMode(s.rate));
    w.txVector.SetChannelWidth(10);
    w.lastTx.assign(devices.GetN(), {-1, -1});
    Outcomes().macRetries = true;
    Outcomes().losKnown = grid != nullptr;
    Outcomes().nodes = devices.GetN();
    Outcomes().lineOfSight.assign(static_cast<std::size_t>(devices.GetN()) * devices.GetN(), -1);
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<WifiNetDevice> device = DynamicCast<WifiNetDevice>(devices.Get(i));
        w.sensitivityDbm = device->GetPhy()->GetRxSensitivity();
        device->GetPhy()->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&WifiTxBegin, i));
        device->GetPhy()->TraceConnectWithoutContext("PhyTxEnd", MakeBoundCallback(&WifiTxEnd, i));
        device->GetPhy()->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&WifiRxDrop, i));
        device->GetPhy()->GetState()->TraceConnectWithoutContext("RxError", MakeBoundCallback(&WifiRxError, i));
        device->GetMac()->TraceConnectWithoutContext("DroppedMpdu", MakeCallback(&WifiMacDropped));
    }
}

} // namespace cavsim
